#include "cli/torch_backend.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <vector>

namespace qlint::cli {

namespace {

constexpr const char* kPluginName = "libqlint_torch.so";

std::vector<std::filesystem::path> plugin_candidates() {
  if (const char* configured = std::getenv("QLINT_TORCH_PLUGIN"); configured && *configured) return {configured};
  std::error_code ec;
  std::filesystem::path binary_dir = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
  return {binary_dir / kPluginName, binary_dir / ".." / "lib" / "qlint" / kPluginName};
}

TorchBackend* load() {
  std::string tried;
  for (const auto& candidate : plugin_candidates()) {
    std::error_code ec;
    if (!std::filesystem::exists(candidate, ec)) {
      tried += (tried.empty() ? "" : ", ") + candidate.lexically_normal().string();
      continue;
    }
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) throw BackendError(std::string("cannot load LibTorch support: ") + dlerror());
    auto entry = reinterpret_cast<TorchBackend* (*)()>(dlsym(handle, "qlint_torch_backend"));
    if (entry == nullptr) throw BackendError(candidate.string() + " is not qlint's LibTorch plugin");
    TorchBackend* backend = entry();
    backend->set_limits(ir::limits());
    return backend;
  }
  throw BackendError("cannot find qlint's LibTorch support (" + std::string(kPluginName) + "; looked at " + tried +
                     "); reinstall qlint, or set QLINT_TORCH_PLUGIN");
}

}  // namespace

TorchBackend& torch_backend() {
  static std::once_flag once;
  static TorchBackend* backend = nullptr;
  static std::string failure;
  std::call_once(once, [] {
    try {
      backend = load();
    } catch (const BackendError& e) {
      failure = e.what();
    }
  });
  if (backend == nullptr) throw BackendError(failure);
  return *backend;
}

}  // namespace qlint::cli
