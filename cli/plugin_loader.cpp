#include "cli/plugin_loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace qlint::cli {

namespace {

std::vector<std::filesystem::path> plugin_candidates(const std::string& file_name, const char* env_var) {
  if (const char* configured = std::getenv(env_var); configured && *configured) return {configured};
  std::error_code ec;
  std::filesystem::path binary_dir = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
  return {binary_dir / file_name, binary_dir / ".." / "lib" / "qlint" / file_name};
}

}  // namespace

void* load_plugin_entry(const std::string& file_name, const char* env_var, const char* symbol, const std::string& what,
                        const std::string& plugin_name) {
  std::string tried;
  for (const auto& candidate : plugin_candidates(file_name, env_var)) {
    std::error_code ec;
    if (!std::filesystem::exists(candidate, ec)) {
      tried += (tried.empty() ? "" : ", ") + candidate.lexically_normal().string();
      continue;
    }
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) throw BackendError("cannot load " + what + ": " + dlerror());
    void* entry = dlsym(handle, symbol);
    if (entry == nullptr) throw BackendError(candidate.string() + " is not qlint's " + plugin_name);
    return entry;
  }
  throw BackendError("cannot find qlint's " + what + " (" + file_name + "; looked at " + tried +
                     "); reinstall qlint, or set " + env_var);
}

}  // namespace qlint::cli
