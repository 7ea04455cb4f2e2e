// Facts about ATen operators that more than one layer needs (front ends, analyses, rules and
// the rewriter).
#pragma once

#include <string>

namespace qlint::ir {

// Ops that return (values, indices) when given a dim, such as `x.max(dim=1)`: TorchScript
// gives them two outputs, FX one tuple.
bool returns_values_and_indices(const std::string& kind);

// Ops whose output is the same data as their first input, rearranged: `is_part` says whether
// they pick a part of it (slice, select, index) rather than reshape the whole.
bool is_view_op(const std::string& kind, bool* is_part = nullptr);

// Strips the namespace and a trailing in-place underscore: aten::mul_ -> "mul".
std::string base_op(const std::string& kind);

// Python spelling of a binary operator kind: aten::mul -> "*", aten::eq -> "==".
std::string operator_spelling(const std::string& kind);

}  // namespace qlint::ir
