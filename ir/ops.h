// Facts about ATen operators that more than one layer needs (front ends, analyses, rules and
// the rewriter).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace qlint::ir {

// Ops that return (values, indices) when given a dim, such as `x.max(dim=1)`: TorchScript
// gives them two outputs, FX one tuple.
bool returns_values_and_indices(const std::string& kind);

// Ops whose output is the same data as their first input, rearranged: `is_part` says whether
// they pick a part of it (slice, select, index) rather than reshape the whole. From the
// node's schema where it has one (its output aliases its first operand and it writes nothing,
// and it is no cast), so every view op LibTorch knows counts; plus the ops that copy a part
// (`index`, `index_select`, `masked_select`, `clone`).
bool is_view_op(const Node& node, bool* is_part = nullptr);

// The operands whose values output `output` is made of, when it holds only values they hold
// (a selection, no arithmetic): `x.amax(1)`, `x.max(dim=1).values`, `x.topk(k).values`,
// `x.sort().values`, `x.median()` pick from `x`; `torch.maximum(a, b)`, `torch.where(c, a, b)`
// pick from `a` and `b`. Empty for any other op or output (the indices such ops also return).
// Views and copying views (is_view_op) select too; they are not listed here.
std::vector<const Value*> selected_operands(const Node& node, size_t output);

// Whether the op's output may share storage with its first operand: views, and ops that return
// the operand itself when there is nothing to change (`reshape`, `contiguous`, `to`); a list,
// tuple or dict holds its items. An in-place write through any of them changes the operand.
bool may_alias_first_operand(const Node& node);

// Whether the op writes operand `operand` in place (`y.add_(1)`, `l.append(v)`, `self.x = v`).
bool writes_in_place(const Node& node, size_t operand);
// Whether it writes any operand in place or module state.
bool writes_anything_in_place(const Node& node);

// Whether the op draws random numbers (its schema takes a `Generator`: `randint`, `rand_like`,
// `bernoulli`, `normal_`, ...): running a copy of it draws other numbers.
bool draws_random_numbers(const Node& node);
// Whether an op of this kind ("aten::randint_") samples in every overload, whatever its schema
// says: most have an overload without the generator.
bool is_sampling_op(const std::string& kind);

// Whether `a` and `b` hold the same values because they are the same value, or the same pure
// ops on the same values and equal constants (`widths[:, None]` written twice, on two lines;
// `self.norm(x)` called twice on one `x`): no in-place write, no random draw, no nested block
// on the way.
bool computes_the_same(const Value* a, const Value* b);
// Whether two nodes carry the same attributes (a constant's value, a call's callee without the
// number a trace appends), provenance aside.
bool same_attributes(const Node& a, const Node& b);

// A tensor cast: `x.to(...)` in any overload, `x.type_as(y)`.
bool is_cast(const Node& node);

// A name without the number TorchScript appends to tell copies apart: "forward2" -> "forward",
// "maxvals0" -> "maxvals".
std::string without_trailing_digits(std::string name);

// Strips the namespace and a trailing in-place underscore: aten::mul_ -> "mul".
std::string base_op(const std::string& kind);

// The name TorchScript gives an ATen op spelled by an alias: `torch.multiply` and `x.greater(y)`
// are aten::mul and aten::gt in a scripted or traced graph (PyTorch 1.13 resolves the aliases),
// while FX records the name the code called. Other names are returned as they are; an in-place
// underscore is kept (`multiply_` -> `mul_`).
std::string canonical_aten_name(const std::string& name);

// Python spelling of a binary operator kind: aten::mul -> "*", aten::eq -> "==".
std::string operator_spelling(const std::string& kind);

}  // namespace qlint::ir
