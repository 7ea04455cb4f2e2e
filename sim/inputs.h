// Simulation inputs as LibTorch values, for the simulator and the rewriter's verification.
#pragma once

#include <torch/script.h>

#include <vector>

#include "sim/simulator.h"

namespace qlint::sim {

using Batch = std::vector<c10::IValue>;  // the forward's positional arguments

// One batch per --input file (dicts are matched to forward's argument names), then the
// seeded random batches. Throws SimError naming the file and the problem, or when no input
// is given at all.
std::vector<Batch> load_batches(torch::jit::Module& module, const Inputs& inputs);

}  // namespace qlint::sim
