// Suppression comments (`# qlint: ignore`, `# qlint: ignore[rule-a, rule-b]`, in C++
// `// qlint: ignore[...]`; `qlint: ignore-next-line[...]` on the line before) and the opt-in
// unused-suppression rule, which reports the ones that silenced nothing. The rule needs every
// other rule's results, so the diagnostics filter (cli/filter.cpp) runs it after them.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "rules/diagnostic.h"

namespace qlint::rules {

struct Suppression {
  std::string file;
  int line = 0;
  int column = 0;  // of the comment
  int end_column = 0;
  bool all_rules = true;
  std::set<std::string> rules;
  std::string spelling = "# qlint: ignore";  // as written, without the rule list: "// qlint: ignore-next-line"
  int target_line = 0;                       // the line it silences: its own, or the next one
};

// Every suppression comment on the model's source lines (from its debug info).
std::vector<Suppression> find_suppressions(const ir::Model& model);

// Whether `s` silences `d`: the line it silences is one of d's lines (an expression written over
// several lines can be silenced at any of them), and it names d's rule or no rule at all.
bool suppresses(const Suppression& s, const Diagnostic& d);

// The unused-suppression finding for a comment that silenced nothing.
Diagnostic unused_suppression(const Suppression& s);

}  // namespace qlint::rules
