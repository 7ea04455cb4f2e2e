// Checked with -fopenmp (tests/CMakeLists.txt): the statements of `#pragma omp parallel for` and
// `#pragma omp parallel` are read as if the pragma were not there (AlphaPose-CPP's keypoint loops).
#include <torch/script.h>

int post(const torch::Tensor& input, int n) {
  torch::Tensor q = at::fake_quantize_per_tensor_affine(input, 0.3, 0, -128, 127);
  int total = 0;
#pragma omp parallel for reduction(+ : total)
  for (int i = 0; i < n; i++) {
    total += q[i][0].item<int>();
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: `q[i][0]`, quantized by `at::fake_quantize_per_tensor_affine` on line 6, is cast to integers{{.*}} [truncating-cast]
    total += q[i][1].item<float>() == 1.0f;
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: {{.*}} [eq-nonzero-const]
  }
#pragma omp parallel
  {
    torch::Tensor c = (q * 10).to(torch::kLong);
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: {{.*}} [truncating-cast]
#pragma omp critical
    total += c.sum().item<int>();
  }
  return total;
}
