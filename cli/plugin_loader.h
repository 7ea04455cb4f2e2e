// Loads one of qlint's own plugins with dlopen: LibTorch support (cli/torch_backend.h) and the
// Clang front end (cli/cxx_backend.h) stay out of the binary's start-up until a command needs
// them.
#pragma once

#include <mutex>
#include <stdexcept>
#include <string>

namespace qlint::cli {

// The plugin could not be loaded (missing, or built for another LibTorch or Clang).
struct BackendError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The entry point `symbol` of the plugin `file_name`, from $`env_var`, or else beside the binary
// (the build tree) or in ../lib/qlint (an installation). `what` names it in errors ("LibTorch
// support"), `plugin_name` names the library ("LibTorch plugin"). Throws BackendError.
void* load_plugin_entry(const std::string& file_name, const char* env_var, const char* symbol, const std::string& what,
                        const std::string& plugin_name);

// The backend a plugin's entry point `Backend* symbol()` returns, loaded on first use, once;
// later calls throw the first failure again.
template <typename Backend>
Backend& load_backend_once(const std::string& file_name, const char* env_var, const char* symbol,
                           const std::string& what, const std::string& plugin_name) {
  static std::once_flag once;
  static Backend* backend = nullptr;
  static std::string failure;
  std::call_once(once, [&] {
    try {
      backend = reinterpret_cast<Backend* (*)()>(load_plugin_entry(file_name, env_var, symbol, what, plugin_name))();
    } catch (const BackendError& e) {
      failure = e.what();
    }
  });
  if (backend == nullptr) throw BackendError(failure);
  return *backend;
}

}  // namespace qlint::cli
