// Comparisons as the model means them. A mask is often written without a comparison op: the
// zero test of a shifted value (`(1.0 - q).to(torch.bool)`, `(q - c) != 0`) is the comparison
// of q with c in disguise. Rules that look for comparisons see both spellings through here.
#pragma once

#include <optional>
#include <string>

#include "ir/ir.h"

namespace qlint::analysis {

// aten::eq/ne/lt/le/gt/ge and their in-place forms.
bool is_comparison_op(const std::string& kind);

// A zero test of `compared - constant`: true where compared == constant (`equal`), or
// where it differs (`!equal`).
struct DisguisedComparison {
  const ir::Value* compared = nullptr;
  double constant = 0;
  bool equal = false;
  const ir::Node* reader = nullptr;  // the node reading `compared` (the shift, or its `neg`)
  int operand = 0;                   // `compared`'s place among the reader's operands
};

// The comparison this node makes in disguise, if it is a zero test of a shifted value.
std::optional<DisguisedComparison> disguised_comparison(const ir::Node& node);

}  // namespace qlint::analysis
