#include "cli/torch_backend.h"

#include <atomic>
#include <mutex>
#include <optional>

namespace qlint::cli {

namespace {

std::string& requested_engine() {
  static std::string name;
  return name;
}

std::atomic<TorchBackend*>& loaded() {
  static std::atomic<TorchBackend*> backend{nullptr};
  return backend;
}

}  // namespace

void request_quantized_engine(const std::string& name) { requested_engine() = name; }

TorchBackend& torch_backend() {
  std::optional<ir::PhaseTimer> starting;
  if (loaded() == nullptr) starting.emplace(ir::Phase::Startup);
  TorchBackend& backend = load_backend_once<TorchBackend>("libqlint_torch.so", "QLINT_TORCH_PLUGIN",
                                                          "qlint_torch_backend", "LibTorch support", "LibTorch plugin");
  // The plugin has its own copy of qlint_ir: it learns the limits the command line set.
  static std::once_flag limits_passed;
  std::call_once(limits_passed, [&] { backend.set_limits(ir::limits()); });
  // Before the first archive is loaded: loading re-packs a converted model's weights for it.
  static std::once_flag engine_selected;
  std::call_once(engine_selected, [&] { backend.select_quantized_engine(requested_engine()); });
  loaded() = &backend;
  return backend;
}

TorchBackend* loaded_torch_backend() { return loaded(); }

}  // namespace qlint::cli
