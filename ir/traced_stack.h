// The user's line in a Python stack as PyTorch records it for traced code: torch.jit.trace keeps
// it as a traced node's source range, torch.onnx.export(..., verbose=True) as each ONNX node's
// doc_string. Lines like "/src/model.py(13): forward", innermost first. LibTorch-free.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "ir/ir.h"

namespace qlint::ir {

using SourceLines = std::map<std::string, std::map<int, std::string>>;  // file -> line -> text

// A file of the installed PyTorch or torchvision (their modules' and ops' own code, which traced
// stacks pass through).
bool is_pytorch_file(const std::string& file);

// The first frame outside PyTorch's own package (else the first frame), as the statement on that
// line: columns are unknown, so the location covers the line's text, read from the file when it
// still exists (and then added to `lines`). Nullopt when the text is no stack: its first line is
// no frame, or a line number past limits().line.
std::optional<SourceLoc> traced_stack_location(const std::string& stack, SourceLines& lines);

}  // namespace qlint::ir
