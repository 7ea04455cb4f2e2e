// The Python edits of a diagnostic's fixes, each fix on its own as `--diff` would show it (new
// stubs declared in __init__, float alias lines, rewritten operands): what SARIF's `fixes` and
// the JSON output's `suggestions` carry, for editors to apply.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cli/render.h"
#include "rewriter/source_suggestions.h"

namespace qlint::cli {

struct PythonFix {
  const Fix* fix = nullptr;
  std::map<std::string, std::vector<rewriter::TextEdit>> edits;  // by source file
};

// The fixes of `d` whose Python change can be shown completely; a fix that cannot (a traced
// model, a source file not on disk) is left out rather than offered half done.
// What the fixes of one model's findings share: the source files, read once. (The new stubs'
// names are unique across the model's findings already: rules::run_all chose them.)
struct PythonFixScope {
  rewriter::SourceFiles sources;
};

std::vector<PythonFix> python_fixes(const ModelReport& report, const Diagnostic& d, PythonFixScope& scope);

const char* applicability_name(Applicability applicability);

}  // namespace qlint::cli
