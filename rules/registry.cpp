#include "rules/registry.h"

#include <algorithm>
#include <cstring>
#include <tuple>

namespace qlint {

const char* severity_name(Severity severity) {
  switch (severity) {
    case Severity::Note: return "note";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
  }
  return "warning";
}

namespace rules {

const std::vector<Rule>& all_rules() {
  static const std::vector<Rule> rules = [] {
    std::vector<Rule> table = {bool_arith_rule(), eq_nonzero_const_rule(), reused_stub_rule(),
                               shared_stub_mask_rule(), unquantized_operand_rule(), unused_suppression_rule()};
    std::sort(table.begin(), table.end(),
              [](const Rule& a, const Rule& b) { return std::strcmp(a.id, b.id) < 0; });
    return table;
  }();
  return rules;
}

const Rule* find_rule(std::string_view id) {
  for (const auto& rule : all_rules())
    if (id == rule.id) return &rule;
  return nullptr;
}

std::vector<Diagnostic> run_all(const analysis::Facts& facts) {
  std::vector<Diagnostic> out;
  for (const auto& rule : all_rules()) {
    if (rule.check == nullptr) continue;
    auto found = rule.check(facts);
    out.insert(out.end(), found.begin(), found.end());
  }
  std::stable_sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.loc.file, a.loc.line, a.loc.column, a.rule) <
           std::tie(b.loc.file, b.loc.line, b.loc.column, b.rule);
  });
  return out;
}

}  // namespace rules
}  // namespace qlint
