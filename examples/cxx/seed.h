// The seed scenarios' input and quantizer in LibTorch C++ (SPEC.md section 2).
#pragma once

#include <torch/script.h>

#include <iostream>

namespace seed {

// actors_input: shape 1x2x4x4, the last channel a 0/1 mask; big_value replaces 60.5 (S4).
inline torch::Tensor actors_input(float big_value = 60.5f) {
  std::vector<float> values = {0.2465f,  -0.4717f, big_value, 1.0f, -0.2124f, 0.5660f,  -1.6637f, 0.0f,
                               0.3338f,  1.6051f,  -1.5088f,  1.0f, -0.9215f, -0.5901f, 1.4871f,  0.0f,
                               0.1650f,  -0.3785f, 1.6710f,   0.0f, -0.3752f, 0.2337f,  0.4186f,  0.0f,
                               -0.2221f, -0.1745f, -0.6064f,  1.0f, 0.9174f,  -0.6317f, 0.6133f,  1.0f};
  return torch::tensor(values).reshape({1, 2, 4, 4});
}

// The deployment's quantizer: int16, per tensor, symmetric, scale from the tensor's range
// (a QuantStub after calibration). qlint knows it from `quant-functions` in .qlint.toml.
inline torch::Tensor quantize_int16(const torch::Tensor& x) {
  const double scale = std::max(x.abs().max().item<double>(), 1e-12) / 32767.5;
  return torch::fake_quantize_per_tensor_affine(x, scale, 0, -32768, 32767);
}

inline void report(const char* name, const torch::Tensor& out, const torch::Tensor& expected) {
  // Within int16's resolution of the output's range: what a correct quantized model keeps.
  const bool ok = torch::allclose(out, expected, 1e-3, 1e-3 * expected.abs().max().item<double>());
  std::cout << name << ": output sum " << out.sum().item<float>() << " (float " << expected.sum().item<float>() << ")"
            << (ok ? "" : "  <- wrong after quantization") << "\n";
}

}  // namespace seed
