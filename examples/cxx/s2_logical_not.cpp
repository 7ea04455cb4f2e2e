// S2: `logical_not(x == 0)` is exact, but the bool mask in `*` makes the toolchain insert a
// bool-to-float cast that runs on the CPU.
#include "seed.h"

using torch::indexing::None;
using torch::indexing::Slice;

torch::Tensor s2(const torch::Tensor& input) {
  torch::Tensor x = seed::quantize_int16(input);
  torch::Tensor mask = torch::logical_not(x.index({Slice(), Slice(), Slice(), -1}) == 0);
  return x * mask.index({Slice(), Slice(), Slice(), None});
}

// Clean: the mask from the float input, as float, quantized on its own.
torch::Tensor s2_clean(const torch::Tensor& input) {
  torch::Tensor mask = torch::logical_not(input.index({Slice(), Slice(), Slice(), -1}) == 0).to(torch::kFloat);
  torch::Tensor data = seed::quantize_int16(input);
  torch::Tensor qmask = seed::quantize_int16(mask);
  return data * qmask.index({Slice(), Slice(), Slice(), None});
}

int main() {
  torch::Tensor input = seed::actors_input();
  torch::Tensor expected =
      input * (input.index({Slice(), Slice(), Slice(), -1}) != 0).index({Slice(), Slice(), Slice(), None});
  seed::report("S2", s2(input), expected);
  seed::report("S2 clean", s2_clean(input), expected);
}
