// The user's Python location of a TorchScript node, from the archive's debug info.
#pragma once

#include <map>
#include <string>

#include "ir/ir.h"

namespace torch::jit {
struct Node;
}

namespace qlint::torchscript {

using SourceLines = std::map<std::string, std::map<int, std::string>>;  // file -> line -> text

// Scripted models keep the original range (file, line, columns); traced models keep Python
// stack frames, so their location is the statement on the user's line. The text of the lines
// covered is added to `lines`. Unknown (line 0) when the node has no debug info.
ir::SourceLoc source_location(const torch::jit::Node& node, SourceLines& lines);

// A file of the installed PyTorch (its modules' own code, which scripted models keep).
bool is_pytorch_file(const std::string& file);

}  // namespace qlint::torchscript
