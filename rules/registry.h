// The rule table: one entry per rule, sorted by id. A rule is a pure function of the IR and
// the analyses' facts; it returns diagnostics and never prints or mutates.
#pragma once

#include <string_view>
#include <vector>

#include "analysis/facts.h"
#include "rules/diagnostic.h"

namespace qlint::rules {

struct RuleDoc {
  const char* what;
  const char* why;
  const char* example;
  const char* fix;
  const char* fix_safety;
};

struct Rule {
  const char* id;       // stable kebab-case, names the hazard
  const char* summary;  // one line
  Severity severity;
  std::vector<Diagnostic> (*check)(const analysis::Facts& facts);  // null: applied after the rules
  RuleDoc doc;
  bool opt_in = false;  // runs only when selected by name
};

const std::vector<Rule>& all_rules();
const Rule* find_rule(std::string_view id);

// Runs every rule; diagnostics come back ordered by file, line, column and rule id.
std::vector<Diagnostic> run_all(const analysis::Facts& facts);

// Each rule's file defines one of these.
const Rule& bool_arith_rule();
const Rule& eq_nonzero_const_rule();
const Rule& reused_stub_rule();
const Rule& shared_stub_mask_rule();
const Rule& unquantized_operand_rule();
const Rule& unused_suppression_rule();

}  // namespace qlint::rules
