// Source text of a C++ operand that a fix calls a method on (`mask.to(torch::kFloat)`).
#pragma once

#include <string>

namespace qlint::rewriter {

// Whether `text` is a C++ primary or postfix expression (`mask`, `m.index({Slice(), None})`,
// `ns::f(x)[0]`, `x.item<float>()`, `(a > b)`), to which `.method(...)` binds as a whole.
// Anything else (`q > 0.5`, `~m`, `a & b`, `0.5`, `(float)x`) binds the method to its last
// part, or does not compile; the answer errs towards false, since parentheses are always safe.
bool is_postfix_expression(const std::string& text);

// `text` followed by `suffix` (".to(torch::kFloat)"), parenthesised first unless it is a postfix
// expression: `(q > 0.5).to(torch::kFloat)`, never `q > 0.5.to(torch::kFloat)`.
std::string with_method_call(const std::string& text, const std::string& suffix);

}  // namespace qlint::rewriter
