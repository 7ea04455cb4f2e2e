// Facts about ATen operators that more than one layer needs (front ends and analyses).
#pragma once

#include <string>

namespace qlint::ir {

// Ops that return (values, indices) when given a dim, such as `x.max(dim=1)`: TorchScript
// gives them two outputs, FX one tuple.
bool returns_values_and_indices(const std::string& kind);

}  // namespace qlint::ir
