// S4: S3 with 70000 in the data: the shared scale is 2.136, round(1 / 2.136) = 0, every mask
// 1 becomes 0 and the output is all zeros.
#include "seed.h"

using torch::indexing::None;
using torch::indexing::Slice;

torch::Tensor s4(const torch::Tensor& input) {
  torch::Tensor x = seed::quantize_int16(input);
  torch::Tensor mask = torch::logical_not(x.index({Slice(), Slice(), Slice(), -1}) == 0).to(torch::kFloat);
  mask = seed::quantize_int16(mask);
  return x * mask.index({Slice(), Slice(), Slice(), None});
}

// Clean: data and mask enter through separate quantizers (S6).
torch::Tensor s4_clean(const torch::Tensor& input) {
  torch::Tensor mask = (input.index({Slice(), Slice(), Slice(), -1}) != 0).to(torch::kFloat);
  torch::Tensor data = seed::quantize_int16(input);
  mask = seed::quantize_int16(mask);
  return data * mask.index({Slice(), Slice(), Slice(), None});
}

int main() {
  torch::Tensor input = seed::actors_input(70000.0f);
  torch::Tensor expected =
      input * (input.index({Slice(), Slice(), Slice(), -1}) != 0).index({Slice(), Slice(), Slice(), None});
  seed::report("S4", s4(input), expected);
  seed::report("S4 clean", s4_clean(input), expected);
}
