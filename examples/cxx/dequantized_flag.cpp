// A comparison on a dequantized tensor whose other uses need its quantized values: `y == 1` is
// never true (at scale 0.3, 1 becomes 0.9), while y's maximum and minimum are what the
// deployment computes. A fix may change the comparison's operand only, never y's assignment,
// or every use of y would lose its quantization.
#include "seed.h"

int main() {
  torch::Tensor x = torch::tensor({0.5f, 1.0f, 12.7f, -18.0f, 3.3f});
  torch::Tensor y = at::quantize_per_tensor(x, 0.3, 0, at::kQInt8).dequantize();
  torch::Tensor hit = y == 1;
  seed::report("flag", hit.to(torch::kFloat), (x == 1).to(torch::kFloat));
  std::cout << "kept: max " << y.max().item<float>() << ", min " << y.min().item<float>() << "\n";
}
