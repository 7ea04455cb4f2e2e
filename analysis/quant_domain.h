// The quant domain: which ops quantize, dequantize or merely view a tensor, and which values
// can carry a rounding error at all.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ir/ir.h"

namespace qlint::analysis {

// Ops that quantize inside the graph (traced QAT models, converted models): their output is
// a quant point of its own. Quantized kernels (quantized::*) produce quantized outputs too.
bool is_in_graph_quant_op(const std::string& kind);

// Where an in-graph quantize op keeps its parameters, as operand positions (-1: not an
// operand). The default QAT qconfig's FusedMovingAvgObsFakeQuantize traces as
// fused_moving_avg_obs_fake_quant(x, observer_on, fake_quant_on, running_min, running_max,
// scale, zero_point, averaging_const, quant_min, quant_max, ch_axis, ...): its scale is operand
// 5, not the flags at 1 and 2.
struct QuantOpOperands {
  int scale = -1;
  int zero_point = -1;
  int quant_min = -1;
  int quant_max = -1;
  int dtype = -1;            // quantize_per_tensor: the quantized dtype sets the range
  int channel_axis = -1;     // fused_moving_avg_obs_fake_quant: -1 there means per tensor
  bool per_channel = false;  // per-channel ops quantize weights, not activations
  // A fake quantize returns float and is the identity once qlint (or a float run) switches it
  // off; quantize ops and quantized kernels return quantized tensors, which are not.
  bool fake = false;

  // Whether the op quantizes per tensor (activations), given the value of its channel_axis
  // operand when it has one.
  bool per_tensor(std::optional<int64_t> channel_axis_value) const;
};
const QuantOpOperands* quant_op_operands(const std::string& kind);

// Eager QAT layers (nn.qat.Linear, Conv2d, ...) quantize their weight through a FakeQuantize
// named `weight_fake_quant`: a weight, not an activation quant point, whatever its granularity.
bool is_weight_quantizer(const std::string& module_path);

// Dynamically quantized kernels (quantize_dynamic): they quantize weights ahead of time and
// activations on the fly, inside the kernel; their inputs and outputs are float, so they are
// no quant points.
bool is_dynamic_quantized_op(const std::string& kind);

// Ops whose output leaves the quantized domain (the error stays).
bool is_dequantize_op(const std::string& kind);

// Ops whose float output is a sign: -1, 0 or 1, exactly (`torch.sign`, `sgn`). Like a
// comparison's bool, it holds no rounding error a later op could see; it is a decision.
bool gives_a_sign(const std::string& kind);

// Whether a value of this type and dtype can hold a rounded value: floating (or unknown)
// tensors, float scalars, and containers of them. Bool and integer values are exact.
bool can_carry_quantization(const ir::Type& type, ir::DType dtype);

}  // namespace qlint::analysis
