// dtype inference for one node: what element type each output has, given its inputs'.
#pragma once

#include <functional>

#include "ir/ir.h"

namespace qlint::analysis {

using DTypeOf = std::function<ir::DType(const ir::Value*)>;

// The dtype of `node`'s output `index`: comparisons and logical ops give bool, casts give
// their target, arithmetic follows PyTorch's type promotion, views keep their input's dtype.
// Unknown when the graph does not say (scripted graphs rarely carry dtypes).
ir::DType infer_output_dtype(const ir::Node& node, size_t index, const DTypeOf& dtype_of);

// PyTorch's promotion of two operand dtypes (a Python float or int scalar is passed as its
// own category through `scalar`): bool < integer < floating.
ir::DType promote(ir::DType a, ir::DType b);

}  // namespace qlint::analysis
