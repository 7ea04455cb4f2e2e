// The float reference of a converted (int8) model: the same graphs with every quantized kernel
// replaced by its float op on the dequantized weights (quantized::conv2d by aten::conv2d on
// dequantize(unpacked weight), quantized::add by aten::add, ...) and every quantize op by its
// input. The simulator runs it as the float side of a converted model, and the model's own
// int8 kernels as the simulated side.
#pragma once

#include <torch/script.h>

#include <set>
#include <string>

#include "ir/torchscript/graph_rewriter.h"

namespace qlint::sim {

// A quantized kernel or quantize op (quantized::conv2d, aten::quantize_per_tensor, ...), not one
// that packs or unpacks weights.
bool is_int8_op(const std::string& kind);

// The quantized kernels and quantize ops a model's graphs run: empty for a float model.
std::set<std::string> int8_ops(const torch::jit::Module& model);

// Rewrites `module`'s graphs (a clone) into the float reference. Returns "" on success, else
// the first op it has no float form for (the module is then partly rewritten: discard it).
std::string make_float_reference(torch::jit::Module& module, torchscript::GraphRewriter& rewriter);

}  // namespace qlint::sim
