// The simulator's LibTorch-level entry points, for code that works with LibTorch already
// (the rewriter's verification).
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

// What to say after the model failed on random inputs that were all float (a model with a bool
// mask input fails in `~mask`): how to give an input its dtype. Empty otherwise.
std::string random_inputs_hint(const Inputs& inputs);

// The tensors of a model output, in order: tuples, lists and dict values flattened.
void flatten_tensors(const c10::IValue& value, std::vector<at::Tensor>& out);

struct Run {
  Report report;
  // The float run's outputs per batch: quant points pass values through unchanged (a traced
  // QAT model's FakeQuantize ops included), which is what "float results" means for a model.
  std::vector<c10::IValue> float_outputs;
};

// Calibrates and simulates a loaded model on these batches; `model_path` names it in the
// report. The model is not changed: the simulator instruments a clone of it. Throws SimError.
Run simulate_loaded(const torch::jit::Module& model, const std::string& model_path, const std::vector<Batch>& batches,
                    const Options& options);

}  // namespace qlint::sim
