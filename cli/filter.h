// What happens to diagnostics between the rules and the output: rule selection, suppression
// comments in the user's Python source, severity overrides, and the opt-in
// unused-suppression rule.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "ir/ir.h"
#include "rules/diagnostic.h"

namespace qlint::cli {

struct Selection {
  std::vector<std::string> select;  // rule ids, or "ALL"; empty: every default rule
  std::vector<std::string> ignore;
  std::map<std::string, Severity> severity;  // per-rule override
  // Rules switched off for a source file (config per-file-ignores); may be empty.
  std::function<std::vector<std::string>(const std::string& path)> ignored_for;
};

// Throws std::invalid_argument naming an unknown rule id.
void validate_selection(const Selection& selection);

// Whether a rule runs: selected (explicitly, or by default unless it is opt-in) and not ignored.
bool rule_enabled(const Selection& selection, const std::string& rule_id);

// What makes two findings the same one: rule, place (file, line, column) and message.
using FindingKey = std::tuple<std::string, std::string, int, int, std::string>;
FindingKey finding_key(const Diagnostic& d);

// Says each finding once (the same rule, place and message), applies `# qlint: ignore` /
// `# qlint: ignore[rule-a, rule-b]` comments on the diagnostic's lines (read from the model's
// debug info), the selection and severity overrides; adds unused-suppression diagnostics when
// that rule is enabled.
std::vector<Diagnostic> filter_diagnostics(const ir::Model& model, std::vector<Diagnostic> diagnostics,
                                           const Selection& selection);

}  // namespace qlint::cli
