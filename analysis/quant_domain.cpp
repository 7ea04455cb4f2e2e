#include "analysis/quant_domain.h"

#include <map>
#include <set>

#include "ir/ops.h"

namespace qlint::analysis {

bool is_in_graph_quant_op(const std::string& kind) {
  static const std::set<std::string> ops = {
      "aten::fake_quantize_per_tensor_affine",
      "aten::fake_quantize_per_channel_affine",
      "aten::fake_quantize_per_tensor_affine_cachemask",
      "aten::fused_moving_avg_obs_fake_quant",
      "aten::_fused_moving_avg_obs_fq_helper",
      "aten::quantize_per_tensor",
      "aten::quantize_per_channel",
  };
  return ops.count(kind) > 0;
}

bool QuantOpOperands::per_tensor(std::optional<int64_t> channel_axis_value) const {
  return !per_channel && (channel_axis < 0 || channel_axis_value == -1);
}

const QuantOpOperands* quant_op_operands(const std::string& kind) {
  // Fields in declaration order: scale, zero_point, quant_min, quant_max, dtype, channel_axis,
  // per_channel, fake.
  static const QuantOpOperands fake_per_tensor{1, 2, 3, 4, -1, -1, false, true};
  static const QuantOpOperands fused{5, 6, 8, 9, -1, 10, false, true};
  static const std::map<std::string, QuantOpOperands> ops = {
      {"aten::fake_quantize_per_tensor_affine", fake_per_tensor},
      {"aten::fake_quantize_per_tensor_affine_cachemask", fake_per_tensor},
      // (x, scale, zero_point, axis, quant_min, quant_max)
      {"aten::fake_quantize_per_channel_affine", {1, 2, 4, 5, -1, -1, true, true}},
      {"aten::fused_moving_avg_obs_fake_quant", fused},
      {"aten::_fused_moving_avg_obs_fq_helper", fused},
      // (x, scale, zero_point, dtype) and (x, scales, zero_points, axis, dtype)
      {"aten::quantize_per_tensor", {1, 2, -1, -1, 3, -1, false, false}},
      {"aten::quantize_per_channel", {-1, -1, -1, -1, 4, -1, true, false}},
  };
  auto it = ops.find(kind);
  return it == ops.end() ? nullptr : &it->second;
}

bool is_weight_quantizer(const std::string& module_path) {
  const std::string name = "weight_fake_quant";
  return module_path == name ||
         (module_path.size() > name.size() &&
          module_path.compare(module_path.size() - name.size() - 1, std::string::npos, "." + name) == 0);
}

bool is_dynamic_quantized_op(const std::string& kind) {
  static const std::set<std::string> ops = {
      "quantized::linear_dynamic",
      "quantized::linear_relu_dynamic",
      "quantized::linear_dynamic_fp16",
      "quantized::linear_relu_dynamic_fp16",
      "quantized::quantized_lstm_cell_dynamic",
      "quantized::quantized_gru_cell_dynamic",
      "quantized::quantized_rnn_relu_cell_dynamic",
      "quantized::quantized_rnn_tanh_cell_dynamic",
      "aten::quantized_lstm",
      "aten::quantized_gru",
      "aten::quantized_lstm_cell",
      "aten::quantized_gru_cell",
  };
  return ops.count(kind) > 0;
}

bool is_dequantize_op(const std::string& kind) { return kind == "aten::dequantize"; }

bool gives_a_sign(const std::string& kind) {
  const std::string op = ir::base_op(kind);
  return op == "sign" || op == "sgn";
}

bool can_carry_quantization(const ir::Type& type, ir::DType dtype) {
  using K = ir::Type::Kind;
  switch (type.kind) {
    case K::Tensor:
      return dtype == ir::DType::Unknown || !(dtype == ir::DType::Bool || ir::is_integral(dtype));
    case K::Float:
      return true;
    case K::List:
    case K::Tuple:
    case K::Optional:
      if (type.elements.empty()) return true;  // element types unknown (FX records only "tuple")
      for (const auto& e : type.elements)
        if (can_carry_quantization(e, e.dtype)) return true;
      return false;
    case K::Other:
      // aten::item gives a Scalar; dicts carry their values (`Dict(str, Tensor)`).
      return type.name == "Scalar" || type.name == "number" || type.name.rfind("Dict[", 0) == 0 ||
             type.name.rfind("Dict(", 0) == 0;
    default:
      return false;
  }
}

}  // namespace qlint::analysis
