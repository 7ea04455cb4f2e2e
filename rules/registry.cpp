#include "rules/registry.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <regex>
#include <set>
#include <tuple>

#include "rules/stub_names.h"
#include "rules/support.h"

namespace qlint {

const char* severity_name(Severity severity) {
  switch (severity) {
    case Severity::Note:
      return "note";
    case Severity::Warning:
      return "warning";
    case Severity::Error:
      return "error";
  }
  return "warning";
}

namespace rules {

const std::vector<Rule>& all_rules() {
  static const std::vector<Rule> rules = [] {
    // Every rule in rules/rules.cmake (the generated list), then sorted by id: the list is
    // sorted by file name, and `_` and `-` sort differently.
    std::vector<Rule> table;
#define QLINT_RULE(stem) table.push_back(stem##_rule());
#include "rules/rule_list.inc"
#undef QLINT_RULE
    std::sort(table.begin(), table.end(), [](const Rule& a, const Rule& b) { return std::strcmp(a.id, b.id) < 0; });
    return table;
  }();
  return rules;
}

const Rule* find_rule(std::string_view id) {
  for (const auto& rule : all_rules())
    if (id == rule.id) return &rule;
  return nullptr;
}

namespace {

// Locations in code FX generated (`<eval_with_key>.7`): said once per model, on the first
// finding there, since the user cannot open that file. Archives and FX exports of a GraphModule
// alike hold only the generated code, so the advice is about the model given to the export.
void note_generated_code(std::vector<Diagnostic>& diagnostics) {
  // TorchScript's builtins are compiled from strings and inlined without a record of the call:
  // `1.0 == t` (a number on the left of a tensor operator) runs the builtin's `return b == a`.
  for (auto& d : diagnostics)
    if (d.loc.file == "<string>")
      d.notes.push_back(
          "<string> is TorchScript's own code for an operator with a number on the left of a tensor "
          "(`1.0 == t`, `2 * x`), which keeps no line of your Python: look for such an expression");
  for (auto& d : diagnostics) {
    if (d.loc.file.empty() || d.loc.file.front() != '<' || d.loc.file == "<string>") continue;
    d.notes.push_back(d.loc.file + " is code torch.fx generated; the model file does not record the line of your " +
                      "Python it came from (script the model, or export it with qlint-fx-export, before torch.fx " +
                      "transforms it to see that line)");
    return;
  }
}

// Adds the edits of `copy`'s fix to `first`'s when both are fixed the same way in the same
// function (one line's copies in one graph); true when it did. `first`'s fix may hold the edits
// of earlier copies already: each copy's edits repeat the kinds of the first's own.
bool join_fix_of_copy(Diagnostic& first, const Diagnostic& copy) {
  if (first.fixes.empty() || copy.fixes.empty() || first.function != copy.function) return false;
  Fix& fix = first.fixes.front();
  const Fix& other = copy.fixes.front();
  const size_t n = other.edits.size();
  if (fix.applicability != other.applicability || n == 0 || fix.edits.size() % n != 0) return false;
  for (size_t i = 0; i < fix.edits.size(); ++i)
    if (fix.edits[i].kind != other.edits[i % n].kind || fix.edits[i].node == other.edits[i % n].node) return false;
  fix.edits.insert(fix.edits.end(), other.edits.begin(), other.edits.end());
  return true;
}

// The copies of a finding's line (a helper a trace inlined for two calls) beside the first: those
// fixed with it, and those that have no fix, with why not (public round 18: a helper's cast on a
// layer's output had no fix, the fix read "the same for its 1 copy", and the finding stayed).
struct CopiesOfALine {
  size_t fixed = 0, unfixed = 0;
  std::string refusal;  // the first unfixed copy's "no automatic fix: ..."

  void add(Diagnostic& first, const Diagnostic& copy) {
    if (join_fix_of_copy(first, copy)) {
      ++fixed;
      return;
    }
    if (first.fixes.empty() || !copy.fixes.empty()) return;
    ++unfixed;
    for (const auto& note : copy.notes)
      if (refusal.empty() && note.rfind("no automatic fix: ", 0) == 0) refusal = note;
  }

  void describe(Diagnostic& first) const {
    if (first.fixes.empty() || (fixed == 0 && unfixed == 0)) return;
    const size_t all = 1 + fixed + unfixed;
    if (unfixed == 0) {
      first.fixes.front().description +=
          " (and the same for its " + std::to_string(fixed) + (fixed == 1 ? " copy" : " copies") + " on this line)";
      return;
    }
    first.fixes.front().description += fixed_copies(1 + fixed, all);
    if (!refusal.empty()) first.notes.push_back(unfixed_copies_note(unfixed, all, refusal));
  }
};

// A finding's message with every quant point it names as one placeholder: a loop the trace
// unrolled quantizes each copy of a line with a fake quant of its own (one per FPN level, per
// attention layer), and those copies are one finding to the user. A finding about a quant point
// itself (its message starts with it: each level's conv quantizing a mask) stays that point's.
std::string message_of_any_copy(const std::vector<std::string>& quant_point_names, std::string message) {
  for (const auto& named : quant_point_names)
    for (size_t at = message.find(named, 1); at != std::string::npos; at = message.find(named, at + 1))
      message.replace(at, named.size(), "`*`");
  // Copies that came through a different number of quant points (the first attention call's
  // operand through fewer layers) are copies all the same.
  static const std::regex list(R"(`\*`((, | and )`\*`)+)");
  return std::regex_replace(message, list, "`*`");
}

// How messages name each quant point, the longest first ("`q` on line 5" before "`q`").
std::vector<std::string> quant_point_names(const analysis::Facts& facts) {
  std::vector<std::string> names;
  for (const auto& [id, point] : facts.quant_points()) names.push_back(analysis::describe(point));
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return names;
}

}  // namespace

std::vector<Diagnostic> run_all(const analysis::Facts& facts) {
  std::vector<Diagnostic> out;
  for (const auto& rule : all_rules()) {
    if (rule.check == nullptr) continue;
    auto found = rule.check(facts);
    out.insert(out.end(), found.begin(), found.end());
  }
  for (auto& d : out)
    if (d.node != nullptr) d.loc = user_location(facts.model(), *d.node, d.loc);
  std::stable_sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.loc.file, a.loc.line, a.loc.column, a.rule) <
           std::tie(b.loc.file, b.loc.line, b.loc.column, b.rule);
  });
  // A front end that unrolls loops or inlines a helper called twice (FX) shows one line of the
  // user's source as several nodes: the user sees one finding there, not one per copy.
  // Two findings at one place (`a * m + n` on one line) alternate in an unrolled loop, so the
  // copies need not be neighbours: the first of each is kept.
  // A copy in the same graph (an unrolled loop applying one stub per level) is fixed with the
  // first: its edits join the first's fix, or the next round would see the finding as done.
  std::map<std::tuple<std::string, std::string, int, int, int, int, std::string>, size_t> seen;
  std::vector<Diagnostic> kept;
  std::map<size_t, CopiesOfALine> copies;
  const std::vector<std::string> names = quant_point_names(facts);
  for (auto& d : out) {
    auto key = std::make_tuple(d.rule, d.loc.file, d.loc.line, d.loc.column, d.loc.end_line, d.loc.end_column,
                               message_of_any_copy(names, d.message));
    auto [it, first] = seen.emplace(key, kept.size());
    if (!d.loc.known() || first) {
      kept.push_back(std::move(d));
      continue;
    }
    copies[it->second].add(kept[it->second], d);
  }
  for (const auto& [index, line] : copies) line.describe(kept[index]);
  out = std::move(kept);
  note_generated_code(out);
  name_new_stubs(facts.model(), out);
  return out;
}

}  // namespace rules
}  // namespace qlint
