// Reading constant operands: Python scalars, tensor constants, torch.tensor(<constant>), and
// small tensors of module state (a FakeQuantize's scale) that the importer recorded.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace qlint::analysis {

// The numbers a constant operand holds, or nullopt when it is not a known constant.
std::optional<std::vector<double>> constant_values(const ir::Value* v);

// A container's key as a constant operand gives it: "'feat" for a string, "2" (or "-1") for an
// integer; "" when it is no constant.
std::string constant_key(const ir::Value* key);

// The value of a constant operand holding exactly one number.
std::optional<double> scalar_constant(const ir::Value* v);

}  // namespace qlint::analysis
