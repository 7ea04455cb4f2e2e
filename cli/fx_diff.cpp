#include "cli/fx_diff.h"

#include "cli/python_fixes.h"

namespace qlint::cli {

namespace {

std::string where(const Diagnostic& d) { return d.rule + " at " + ir::display_location(d.loc); }

}  // namespace

rewriter::FixResult diff_fx(const ModelReport& report, bool unsafe_fixes) {
  rewriter::FixResult result;
  result.found = static_cast<int>(report.diagnostics.size());
  result.text_only = true;
  PythonFixScope scope;
  rewriter::SourceSuggestions combined(&scope.sources);
  for (const auto& d : report.diagnostics) {
    const Fix* fix = first_applicable_fix(d, unsafe_fixes);
    if (fix == nullptr) {
      result.remaining.push_back(d);
      continue;
    }
    rewriter::SourceSuggestions alone(&scope.sources);
    for (const Edit& e : fix->edits) alone.add(*report.model, e);
    if (!alone.notes().empty()) {
      result.skipped.push_back(where(d) + ": " + alone.notes().front());
      result.remaining.push_back(d);
      continue;
    }
    for (const Edit& e : fix->edits) combined.add(*report.model, e);
    result.applied.push_back({d.rule, fix->description, d.loc, d.function ? d.function->name : "", {}});
  }
  result.held_back = unsafe_fixes_held_back(report.diagnostics, unsafe_fixes);
  result.python_diff = combined.diff(ir::display_path);
  result.python_notes = combined.notes();
  return result;
}

}  // namespace qlint::cli
