#include "cli/torch_backend.h"

namespace qlint::cli {

TorchBackend& torch_backend() {
  return load_backend_once<TorchBackend>("libqlint_torch.so", "QLINT_TORCH_PLUGIN", "qlint_torch_backend",
                                         "LibTorch support", "LibTorch plugin");
}

}  // namespace qlint::cli
