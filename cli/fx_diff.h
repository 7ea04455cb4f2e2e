// `qlint --diff` for an FX export: the Python change of one fix per finding, computed on the
// source alone. An FX export holds no runnable model, so nothing is rewritten or verified;
// the result has the shape of the rewriter's, for the same text and JSON reports.
#pragma once

#include "cli/render.h"
#include "rewriter/rewriter.h"

namespace qlint::cli {

rewriter::FixResult diff_fx(const ModelReport& report, bool unsafe_fixes);

}  // namespace qlint::cli
