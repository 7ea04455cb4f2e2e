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

// The tensors of a model output, in order: tuples, lists and dict values flattened.
void flatten_tensors(const c10::IValue& value, std::vector<at::Tensor>& out);

// The model's float outputs per batch: quant points pass values through unchanged (a traced
// QAT model's FakeQuantize ops included), which is what "float results" means for it.
std::vector<c10::IValue> float_outputs(const std::string& model_path, const Inputs& inputs, const Options& options);

}  // namespace qlint::sim
