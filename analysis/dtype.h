// dtype inference for one node: what element type each output has, given its inputs'.
#pragma once

#include <functional>
#include <optional>

#include "ir/ir.h"

namespace qlint::analysis {

using DTypeOf = std::function<ir::DType(const ir::Value*)>;

// The dtype of `node`'s output `index`: comparisons and logical ops give bool, casts give
// their target, arithmetic follows PyTorch's type promotion, views keep their input's dtype.
// Unknown when the graph does not say (scripted graphs rarely carry dtypes).
ir::DType infer_output_dtype(const ir::Node& node, size_t index, const DTypeOf& dtype_of);

// The dtype a cast produces, for every overload: `x.to(torch.bool)`, `x.to(device, torch.bool)`
// (a traced `.type(torch.BoolTensor)`), `x.to(dtype=...)`, `x.to(y)`, `x.type_as(y)`, read from
// the schema's `dtype` or `other` argument. The operand's own dtype for a move without one;
// nullopt when `node` is no cast or its dtype is not a constant.
std::optional<ir::DType> cast_dtype(const ir::Node& node, const DTypeOf& dtype_of);

// PyTorch's promotion of two operand dtypes (a Python float or int scalar is passed as its
// own category through `scalar`): bool < integer < floating.
ir::DType promote(ir::DType a, ir::DType b);

}  // namespace qlint::analysis
