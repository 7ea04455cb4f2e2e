#include "cli/filter.h"

#include <algorithm>
#include <regex>
#include <set>
#include <stdexcept>

#include "rules/registry.h"

namespace qlint::cli {

namespace {

struct Suppression {
  std::string file;
  int line = 0;
  int column = 0;  // of the comment
  int end_column = 0;
  bool all_rules = true;
  std::set<std::string> rules;
};

// `# qlint: ignore` or `# qlint: ignore[a, b]` anywhere in a line's comment.
std::optional<Suppression> parse_suppression(const std::string& file, int line, const std::string& text) {
  static const std::regex comment(R"(#\s*qlint:\s*ignore(\[([^\]]*)\])?)");
  std::smatch m;
  if (!std::regex_search(text, m, comment)) return std::nullopt;
  Suppression s{file, line, static_cast<int>(m.position(0)) + 1, static_cast<int>(m.position(0) + m.length(0)) + 1,
                !m[1].matched, {}};
  static const std::regex id(R"([a-z0-9-]+)");
  std::string ids = m[2];
  for (std::sregex_iterator it(ids.begin(), ids.end(), id), end; it != end; ++it) s.rules.insert(it->str());
  return s;
}

bool suppresses(const Suppression& s, const Diagnostic& d) {
  return s.file == d.loc.file && s.line == d.loc.line && (s.all_rules || s.rules.count(d.rule));
}

bool listed(const std::vector<std::string>& ids, const std::string& rule) {
  return std::find(ids.begin(), ids.end(), rule) != ids.end() || std::find(ids.begin(), ids.end(), "ALL") != ids.end();
}

Diagnostic unused_suppression(const Suppression& s) {
  const rules::Rule* rule = rules::find_rule("unused-suppression");
  Diagnostic d;
  d.rule = "unused-suppression";
  d.severity = rule ? rule->severity : Severity::Warning;
  d.message = "this `# qlint: ignore` silences nothing here; remove it so it cannot hide a future finding";
  d.loc = {s.file, s.line, s.column, s.line, s.end_column};
  return d;
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

std::vector<Diagnostic> filter_diagnostics(const ir::Model& model, std::vector<Diagnostic> diagnostics,
                                           const Selection& selection) {
  std::vector<Suppression> suppressions;
  for (const auto& [file, lines] : model.source_lines)
    for (const auto& [line, text] : lines)
      if (auto s = parse_suppression(file, line, text)) suppressions.push_back(*s);
  std::vector<bool> used(suppressions.size(), false);
  std::vector<Diagnostic> kept;
  for (auto& d : diagnostics) {
    // A suppression that silences a finding of a deselected rule is still in use.
    bool silenced = false;
    for (size_t i = 0; i < suppressions.size(); ++i)
      if (d.loc.known() && suppresses(suppressions[i], d)) silenced = used[i] = true;
    if (silenced || !rule_enabled(selection, d.rule)) continue;
    if (selection.ignored_for && d.loc.known() && listed(selection.ignored_for(d.loc.file), d.rule)) continue;
    if (auto it = selection.severity.find(d.rule); it != selection.severity.end()) d.severity = it->second;
    kept.push_back(std::move(d));
  }
  if (rule_enabled(selection, "unused-suppression"))
    for (size_t i = 0; i < suppressions.size(); ++i)
      if (!used[i]) kept.push_back(unused_suppression(suppressions[i]));
  std::stable_sort(kept.begin(), kept.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.loc.file, a.loc.line, a.loc.column, a.rule) < std::tie(b.loc.file, b.loc.line, b.loc.column, b.rule);
  });
  return kept;
}

}  // namespace qlint::cli
