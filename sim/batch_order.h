// Whether a model's input batches may be simulated at once, on several threads (qlint sim -j),
// with results identical to running them one after another. They may not when one batch's run
// can change another's: the model draws random numbers (LibTorch's generator is one for the
// process, seeded per batch), or its forward changes the module's own state (a counter, a
// cache), which the next batch then sees.
#pragma once

#include <torch/script.h>

#include <string>

namespace qlint::sim {

// Why the batches must run one after another ("forward draws random numbers (aten::randint)"),
// or "" when they may run at once. Looks at every graph its forward can run. A dropout is not
// counted: the simulator runs models in eval mode, where it draws nothing; a run that draws all
// the same is found by the generator's state, and run again in order (sim/simulator.cpp).
std::string why_batches_run_in_order(const torch::jit::Module& module);

}  // namespace qlint::sim
