// The floor a TorchScript linter in C++ cannot go below: LibTorch's start-up (this program links
// it, as qlint's plugin does) and torch::jit::load of each archive, nothing else. bench/check_bench.py
// times it against `qlint check` on the same archives.
//
//   build/qlint_load_floor ARCHIVE...      exits 0 when every archive loaded, 1 otherwise
#include <torch/script.h>

#include <iostream>

int main(int argc, char** argv) {
  int failed = 0;
  for (int i = 1; i < argc; ++i) {
    try {
      torch::jit::Module module = torch::jit::load(argv[i]);
    } catch (const std::exception& e) {
      std::cerr << argv[i] << ": " << e.what() << "\n";
      failed = 1;
    }
  }
  return failed;
}
