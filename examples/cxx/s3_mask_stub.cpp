// S3: S2 with the mask cast to float and quantized on its own; the mask still comes from the
// quantized tensor, so it shares the data's scale first.
#include "seed.h"

using torch::indexing::None;
using torch::indexing::Slice;

torch::Tensor s3(const torch::Tensor& input) {
  torch::Tensor x = seed::quantize_int16(input);
  torch::Tensor mask = torch::logical_not(x.index({Slice(), Slice(), Slice(), -1}) == 0).to(torch::kFloat);
  mask = seed::quantize_int16(mask);
  return x * mask.index({Slice(), Slice(), Slice(), None});
}

// Clean: the mask from the float input (S6).
torch::Tensor s3_clean(const torch::Tensor& input) {
  torch::Tensor mask = torch::logical_not(input.index({Slice(), Slice(), Slice(), -1}) == 0).to(torch::kFloat);
  torch::Tensor data = seed::quantize_int16(input);
  mask = seed::quantize_int16(mask);
  return data * mask.index({Slice(), Slice(), Slice(), None});
}

int main() {
  torch::Tensor input = seed::actors_input();
  torch::Tensor expected =
      input * (input.index({Slice(), Slice(), Slice(), -1}) != 0).index({Slice(), Slice(), Slice(), None});
  seed::report("S3", s3(input), expected);
  seed::report("S3 clean", s3_clean(input), expected);
}
