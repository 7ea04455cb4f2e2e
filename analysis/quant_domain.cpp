#include "analysis/quant_domain.h"

#include <map>
#include <set>

namespace qlint::analysis {

bool is_in_graph_quant_op(const std::string& kind) {
  static const std::set<std::string> ops = {
      "aten::fake_quantize_per_tensor_affine",
      "aten::fake_quantize_per_channel_affine",
      "aten::fake_quantize_per_tensor_affine_cachemask",
      "aten::fused_moving_avg_obs_fake_quant",
      "aten::quantize_per_tensor",
      "aten::quantize_per_channel",
  };
  return ops.count(kind) > 0;
}

bool is_dequantize_op(const std::string& kind) { return kind == "aten::dequantize"; }

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
      return type.name == "Scalar" || type.name == "number";  // aten::item
    default:
      return false;
  }
}

}  // namespace qlint::analysis
