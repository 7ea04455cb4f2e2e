// S5: tiny data (all |x| < 0.01) shares one quantizer with the 0/1 mask: the 1s set the scale
// and the data keeps far fewer bits.
#include "seed.h"

using torch::indexing::None;
using torch::indexing::Slice;

torch::Tensor s5(const torch::Tensor& input) {
  torch::Tensor x = seed::quantize_int16(input);
  torch::Tensor data = x.index({Slice(), Slice(), Slice(), Slice(None, -1)});
  torch::Tensor mask = x.index({Slice(), Slice(), Slice(), -1});
  return data * mask.index({Slice(), Slice(), Slice(), None});
}

// Clean: data and mask each through a quantizer of their own, from the float input.
torch::Tensor s5_clean(const torch::Tensor& input) {
  torch::Tensor data = seed::quantize_int16(input.index({Slice(), Slice(), Slice(), Slice(None, -1)}));
  torch::Tensor mask = seed::quantize_int16(input.index({Slice(), Slice(), Slice(), -1}));
  return data * mask.index({Slice(), Slice(), Slice(), None});
}

int main() {
  torch::Tensor input = seed::actors_input();
  input.index_put_({Slice(), Slice(), Slice(), Slice(None, -1)},
                   input.index({Slice(), Slice(), Slice(), Slice(None, -1)}) / 10000.0);
  torch::Tensor expected = input.index({Slice(), Slice(), Slice(), Slice(None, -1)}) *
                           input.index({Slice(), Slice(), Slice(), Slice(-1, None)});
  seed::report("S5", s5(input) * 10000, expected * 10000);
  seed::report("S5 clean", s5_clean(input) * 10000, expected * 10000);
}
