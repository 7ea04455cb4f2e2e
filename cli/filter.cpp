#include "cli/filter.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "rules/registry.h"
#include "rules/unused_suppression.h"

namespace qlint::cli {

namespace {

bool listed(const std::vector<std::string>& ids, const std::string& rule) {
  return std::find(ids.begin(), ids.end(), rule) != ids.end() || std::find(ids.begin(), ids.end(), "ALL") != ids.end();
}

}  // namespace

void validate_selection(const Selection& selection) {
  auto check = [](const std::string& id) {
    if (id != "ALL" && rules::find_rule(id) == nullptr)
      throw std::invalid_argument("unknown rule '" + id + "'; `qlint rules` lists them");
  };
  for (const auto& id : selection.select) check(id);
  for (const auto& id : selection.ignore) check(id);
  for (const auto& [id, severity] : selection.severity) check(id);
}

bool rule_enabled(const Selection& selection, const std::string& rule_id) {
  if (listed(selection.ignore, rule_id)) return false;
  const rules::Rule* rule = rules::find_rule(rule_id);
  bool explicitly = std::find(selection.select.begin(), selection.select.end(), rule_id) != selection.select.end();
  if (rule && rule->opt_in) return explicitly;
  return selection.select.empty() || listed(selection.select, rule_id);
}

namespace {

// The same finding at the same place is said once: a C++ function template is analysed in each
// of its instantiations, and they share their findings.
std::vector<Diagnostic> one_per_place(std::vector<Diagnostic> diagnostics) {
  std::set<FindingKey> seen;
  std::vector<Diagnostic> out;
  for (auto& d : diagnostics)
    if (seen.insert(finding_key(d)).second) out.push_back(std::move(d));
  return out;
}

}  // namespace

FindingKey finding_key(const Diagnostic& d) { return {d.rule, d.loc.file, d.loc.line, d.loc.column, d.message}; }

std::vector<Diagnostic> filter_diagnostics(const ir::Model& model, std::vector<Diagnostic> found,
                                           const Selection& selection) {
  std::vector<Diagnostic> diagnostics = one_per_place(std::move(found));
  const std::vector<rules::Suppression> suppressions = rules::find_suppressions(model);
  std::vector<bool> used(suppressions.size(), false);
  std::vector<Diagnostic> kept;
  for (auto& d : diagnostics) {
    // A suppression that silences a finding of a deselected rule is still in use.
    bool silenced = false;
    for (size_t i = 0; i < suppressions.size(); ++i)
      if (d.loc.known() && rules::suppresses(suppressions[i], d)) silenced = used[i] = true;
    if (silenced || !rule_enabled(selection, d.rule)) continue;
    if (selection.ignored_for && d.loc.known() && listed(selection.ignored_for(d.loc.file), d.rule)) continue;
    if (auto it = selection.severity.find(d.rule); it != selection.severity.end()) d.severity = it->second;
    kept.push_back(std::move(d));
  }
  if (rule_enabled(selection, "unused-suppression"))
    for (size_t i = 0; i < suppressions.size(); ++i)
      if (!used[i]) kept.push_back(rules::unused_suppression(suppressions[i]));
  std::stable_sort(kept.begin(), kept.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.loc.file, a.loc.line, a.loc.column, a.rule) <
           std::tie(b.loc.file, b.loc.line, b.loc.column, b.rule);
  });
  return kept;
}

}  // namespace qlint::cli
