#include "cli/python_fixes.h"

namespace qlint::cli {

std::vector<PythonFix> python_fixes(const ModelReport& report, const Diagnostic& d, PythonFixScope& scope) {
  std::vector<PythonFix> out;
  for (const auto& fix : d.fixes) {
    rewriter::SourceSuggestions suggestion(&scope.sources);
    for (const Edit& e : fix.edits) suggestion.add(*report.model, e);
    auto edits = suggestion.text_edits();
    if (!suggestion.notes().empty() || edits.empty()) continue;
    out.push_back({&fix, std::move(edits)});
  }
  return out;
}

const char* applicability_name(Applicability applicability) {
  switch (applicability) {
    case Applicability::Safe:
      return "safe";
    case Applicability::Unsafe:
      return "unsafe";
    case Applicability::DisplayOnly:
      return "display-only";
  }
  return "safe";
}

}  // namespace qlint::cli
