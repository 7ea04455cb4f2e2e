// S1: `x[:, :, :, -1] == 1` after quantizing: 1.0 becomes 1.0007, the mask is all false and
// the output all zeros.
#include "seed.h"

using torch::indexing::None;
using torch::indexing::Slice;

torch::Tensor s1(const torch::Tensor& input) {
  torch::Tensor x = seed::quantize_int16(input);
  torch::Tensor mask = x.index({Slice(), Slice(), Slice(), -1}) == 1;
  return x * mask.index({Slice(), Slice(), Slice(), None});
}

// Clean: compare in float, then quantize data and mask separately (S6).
torch::Tensor s1_clean(const torch::Tensor& input) {
  torch::Tensor mask = (input.index({Slice(), Slice(), Slice(), -1}) == 1).to(torch::kFloat);
  torch::Tensor data = seed::quantize_int16(input);
  torch::Tensor qmask = seed::quantize_int16(mask);
  return data * qmask.index({Slice(), Slice(), Slice(), None});
}

int main() {
  torch::Tensor input = seed::actors_input();
  torch::Tensor expected =
      input * (input.index({Slice(), Slice(), Slice(), -1}) == 1).index({Slice(), Slice(), Slice(), None});
  seed::report("S1", s1(input), expected);
  seed::report("S1 clean", s1_clean(input), expected);
}
