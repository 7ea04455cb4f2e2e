// The rule table: one entry per rule, sorted by id. A rule is a pure function of the IR and
// the analyses' facts; it returns diagnostics and never prints or mutates.
#pragma once

#include <string_view>
#include <vector>

#include "analysis/facts.h"
#include "rules/diagnostic.h"

namespace qlint::rules {

// What `qlint explain RULE` and docs/rules/<id>.md print, one field per heading.
struct RuleDoc {
  const char* what = "";        // What it finds
  const char* why = "";         // Why it breaks
  const char* example = "";     // Example: Python lines, indented by four spaces
  const char* fix = "";         // Fix
  const char* fix_safety = "";  // Fix safety: whether the fix keeps float results, and why
};

// A rule's file defines it field by field, by name, in its `<stem>_rule()` function:
//
//   const Rule& my_hazard_rule() {
//     static const Rule rule = [] {
//       Rule r;
//       r.id = "my-hazard";
//       r.summary = "...";
//       r.severity = Severity::Warning;
//       r.check = check;
//       r.doc.what = "...";  // and why, example, fix, fix_safety
//       return r;
//     }();
//     return rule;
//   }
// How a rule reads for LibTorch C++ code (docs/cxx.md), for the rules the C++ front end can
// report: SARIF of a C++ run and the rule pages say it in C++ words. `why` may stay empty
// when the rule's own says it in words of neither language.
struct CxxRuleDoc {
  const char* summary = "";
  const char* what = "";
  const char* why = "";
  const char* example = "";  // C++ lines, indented by four spaces
  const char* fix = "";
  const char* fix_safety = "";
};

struct Rule {
  const char* id = "";       // stable kebab-case, names the hazard
  const char* summary = "";  // one line
  Severity severity = Severity::Warning;
  std::vector<Diagnostic> (*check)(const analysis::Facts& facts) = nullptr;  // null: applied after the rules
  RuleDoc doc;
  CxxRuleDoc cxx;  // empty summary: the rule never fires on C++ code
  // What `--fix` does on an ONNX model (docs/onnx.md), for the rules it has an ONNX fix for.
  const char* onnx_fix = "";
  bool opt_in = false;  // runs only when selected by name
};

const std::vector<Rule>& all_rules();
const Rule* find_rule(std::string_view id);

// Runs every rule; diagnostics come back ordered by file, line, column and rule id.
std::vector<Diagnostic> run_all(const analysis::Facts& facts);

// Each rules/<stem>.cpp listed in rules/rules.cmake defines `const Rule& <stem>_rule();`.
// CMake generates the list (rules/rule_list.inc in the build tree), one `QLINT_RULE(<stem>)`
// per rule; nobody edits this file to add a rule.
#define QLINT_RULE(stem) const Rule& stem##_rule();
#include "rules/rule_list.inc"
#undef QLINT_RULE

}  // namespace qlint::rules
