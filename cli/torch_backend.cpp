#include "cli/torch_backend.h"

#include <mutex>

namespace qlint::cli {

TorchBackend& torch_backend() {
  TorchBackend& backend = load_backend_once<TorchBackend>("libqlint_torch.so", "QLINT_TORCH_PLUGIN",
                                                          "qlint_torch_backend", "LibTorch support", "LibTorch plugin");
  // The plugin has its own copy of qlint_ir: it learns the limits the command line set.
  static std::once_flag limits_passed;
  std::call_once(limits_passed, [&] { backend.set_limits(ir::limits()); });
  return backend;
}

}  // namespace qlint::cli
