// The verdict of `qlint --fix` with inputs: whether the model as --fix leaves it is fixed, by
// its static findings and by its own simulation. LibTorch-free: the rewriter's LibTorch part
// runs it, and the CLI reads the result.
#pragma once

#include "rewriter/rewriter.h"

namespace qlint::rewriter {

// Re-runs the rules on result.final_model with result.final_simulation() as evidence, so what
// the rewrites could not reach (a comparison still flipping, an output under the SQNR threshold)
// is among the remaining findings at its Python line, and in result.simulation_failures.
// Without a simulation it leaves the result as it is.
void judge_final_model(FixResult& result, const FixOptions& options);

}  // namespace qlint::rewriter
