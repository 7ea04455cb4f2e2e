// PyTorch's per-tensor fake quantization of one value, computed the way its CPU kernel does
// (float arithmetic, round half to even): clamp(nearbyint(x / scale) + zp, qmin, qmax) - zp,
// times scale. Rules use it to say what a constant becomes at a known scale.
#pragma once

#include <cstdint>

namespace qlint::analysis {

float fake_quantize(float x, float scale, int64_t zero_point, int64_t quant_min, int64_t quant_max);

}  // namespace qlint::analysis
