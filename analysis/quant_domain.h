// The quant domain: which ops quantize, dequantize or merely view a tensor, and which values
// can carry a rounding error at all.
#pragma once

#include <string>

#include "ir/ir.h"

namespace qlint::analysis {

// Ops that quantize inside the graph (traced QAT models, converted models): their output is
// a quant point of its own. Quantized kernels (quantized::*) produce quantized outputs too.
bool is_in_graph_quant_op(const std::string& kind);

// Ops whose output leaves the quantized domain (the error stays).
bool is_dequantize_op(const std::string& kind);

// Whether a value of this type and dtype can hold a rounded value: floating (or unknown)
// tensors, float scalars, and containers of them. Bool and integer values are exact.
bool can_carry_quantization(const ir::Type& type, ir::DType dtype);

}  // namespace qlint::analysis
