// The user's Python location of a TorchScript node, from the archive's debug info.
#pragma once

#include <map>
#include <string>

#include "ir/ir.h"
#include "ir/traced_stack.h"

namespace torch::jit {
struct Node;
}

namespace qlint::torchscript {

using SourceLines = ir::SourceLines;

// Scripted models keep the original range (file, line, columns); traced models keep Python
// stack frames, so their location is the statement on the user's line. The text of the lines
// covered is added to `lines`. Unknown (line 0) when the node has no debug info.
ir::SourceLoc source_location(const torch::jit::Node& node, SourceLines& lines);

// Whether torch.jit.trace recorded the node (its debug info is a Python stack).
bool recorded_by_trace(const torch::jit::Node& node);

}  // namespace qlint::torchscript
