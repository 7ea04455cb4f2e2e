// unused-suppression (opt-in): a `# qlint: ignore` comment that silenced nothing. It needs
// the other rules' results, so cli/filter.cpp applies it after them; this file holds its
// registry entry and documentation.
#include "rules/registry.h"

namespace qlint::rules {

const Rule& unused_suppression_rule() {
  static const Rule rule{
      "unused-suppression",
      "a `# qlint: ignore` comment that silences nothing (opt-in)",
      Severity::Warning,
      nullptr,
      {
          "A `# qlint: ignore` or `# qlint: ignore[rule-id]` comment on a line of the model's "
          "source where no diagnostic (of the named rules) was silenced.",
          "Suppressions outlive the code they were written for. One that silences nothing today "
          "will silently hide the next real finding on its line.",
          "    out = x * 2.0  # qlint: ignore[bool-arith]   <- nothing to ignore here",
          "Remove the comment, or narrow it to the rule that still fires.",
          "No automatic fix: qlint rewrites models, not comments.",
      },
      true};
  return rule;
}

}  // namespace qlint::rules
