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

bool is_view_op(const std::string& kind, bool* is_part) {
  // true: picks a part of the input; false: the whole input, reshaped or moved.
  static const std::map<std::string, bool> views = {
      {"aten::slice", true},      {"aten::select", true},     {"aten::index", true},
      {"aten::narrow", true},     {"aten::__getitem__", true}, {"aten::index_select", true},
      {"aten::masked_select", true},
      {"aten::unsqueeze", false}, {"aten::squeeze", false},   {"aten::view", false},
      {"aten::reshape", false},   {"aten::permute", false},   {"aten::transpose", false},
      {"aten::flatten", false},   {"aten::contiguous", false}, {"aten::expand", false},
      {"aten::expand_as", false}, {"aten::view_as", false},   {"aten::reshape_as", false},
      {"aten::t", false},         {"aten::clone", false},     {"aten::detach", false},
  };
  auto it = views.find(kind);
  if (it == views.end()) return false;
  if (is_part) *is_part = it->second;
  return true;
}

bool can_carry_quantization(const ir::Type& type, ir::DType dtype) {
  using K = ir::Type::Kind;
  switch (type.kind) {
    case K::Tensor:
      return dtype == ir::DType::Unknown || !(dtype == ir::DType::Bool || ir::is_integral(dtype));
    case K::Float: return true;
    case K::List:
    case K::Tuple:
    case K::Optional:
      if (type.elements.empty()) return true;  // element types unknown (FX records only "tuple")
      for (const auto& e : type.elements)
        if (can_carry_quantization(e, e.dtype)) return true;
      return false;
    case K::Other: return type.name == "Scalar" || type.name == "number";  // aten::item
    default: return false;
  }
}

}  // namespace qlint::analysis
