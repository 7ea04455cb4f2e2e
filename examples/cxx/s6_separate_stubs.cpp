// S6, the recommended form: data and mask enter through separate quantizers, the mask compared
// in float first; correct, and no CPU fallback.
#include "seed.h"

using torch::indexing::None;
using torch::indexing::Slice;

torch::Tensor s6(const torch::Tensor& input) {
  torch::Tensor mask = (input.index({Slice(), Slice(), Slice(), -1}) == 1).to(torch::kFloat);
  torch::Tensor data = seed::quantize_int16(input);
  mask = seed::quantize_int16(mask);
  return data * mask.index({Slice(), Slice(), Slice(), None});
}

int main() {
  torch::Tensor input = seed::actors_input();
  torch::Tensor expected =
      input * (input.index({Slice(), Slice(), Slice(), -1}) == 1).index({Slice(), Slice(), Slice(), None});
  seed::report("S6", s6(input), expected);
}
