#include "analysis/fake_quant.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace qlint::analysis {

float fake_quantize(float x, float scale, int64_t zero_point, int64_t quant_min, int64_t quant_max) {
  if (quant_min > quant_max) return std::numeric_limits<float>::quiet_NaN();  // no integer to round to
  // As in ATen's fake_quantize_tensor_cachemask_kernel: multiply by the float reciprocal,
  // std::nearbyint under the default rounding mode (half to even).
  const float inv_scale = 1.0f / scale;
  const float shifted = static_cast<float>(zero_point) + std::nearbyint(x * inv_scale);
  if (std::isnan(shifted)) return std::numeric_limits<float>::quiet_NaN();
  // Clamped in float before the conversion, as a value past int64's range (a tiny scale a model
  // states) has no integer; within it, clamping again as integers gives ATen's result exactly.
  const float bounded = std::clamp(shifted, static_cast<float>(quant_min), static_cast<float>(quant_max));
  const int64_t q = std::clamp(static_cast<int64_t>(bounded), quant_min, quant_max);
  return static_cast<float>(q - zero_point) * scale;
}

}  // namespace qlint::analysis
