#include "analysis/fake_quant.h"

#include <algorithm>
#include <cmath>

namespace qlint::analysis {

float fake_quantize(float x, float scale, int64_t zero_point, int64_t quant_min, int64_t quant_max) {
  // As in ATen's fake_quantize_tensor_cachemask_kernel: multiply by the float reciprocal,
  // std::nearbyint under the default rounding mode (half to even).
  const float inv_scale = 1.0f / scale;
  const auto q = static_cast<int64_t>(static_cast<float>(zero_point) + std::nearbyint(x * inv_scale));
  return static_cast<float>(std::clamp(q, quant_min, quant_max) - zero_point) * scale;
}

}  // namespace qlint::analysis
