// libqlint_torch.so: the TorchBackend over the LibTorch-backed importer, simulator and
// rewriter. Loaded by the qlint binary with dlopen (cli/torch_backend.cpp).
#include <c10/util/Exception.h>
#include <dlfcn.h>

#include <cstdio>
#include <mutex>
#include <set>
#include <string>

#include "cli/torch_backend.h"
#include "ir/large_stack.h"
#include "ir/torchscript/importer.h"
#include "ir/torchscript/module_import.h"
#include "sim/engine.h"

namespace qlint::cli {
namespace {

// LibTorch's warnings (TORCH_WARN), each place in LibTorch's code said once per run, as Python
// shows a warning's place once: a model's warning fires at every call in every pass qlint makes
// (float, simulated, each attribution pass; public round 17's SSD: 1,288 copies of one `out=`
// resize warning, each naming other shapes, on one `check --input`). Written straight to
// stderr, which also keeps glog's "Logging before InitGoogleLogging()" away.
class OnceWarningHandler final : public c10::WarningHandler {
 public:
  void process(const c10::SourceLocation& where, const std::string& msg, const bool /*verbatim*/) override {
    const std::string key = std::string(where.file) + ":" + std::to_string(where.line);
    std::lock_guard<std::mutex> lock(mutex_);
    if (!said_.insert(key).second) return;
    std::fprintf(stderr, "qlint: LibTorch warns (said once, for the first of its calls): %s\n", msg.c_str());
  }

 private:
  std::mutex mutex_;
  std::set<std::string> said_;
};

OnceWarningHandler& once_warnings() {
  static OnceWarningHandler handler;
  return handler;
}

// Runs `job` on a large stack (ir/large_stack.h) with LibTorch's warnings said once: LibTorch
// keeps its warning handler per thread, and each job runs on a thread of its own.
template <typename Job>
auto on_large_stack(Job&& job) {
  return ir::on_large_stack([&] {
    c10::Warning::WarningHandlerGuard once(&once_warnings());
    return job();
  });
}

class LibTorchBackend final : public TorchBackend {
 public:
  // LibTorch compiles and runs graphs recursively, once per level of what the model holds: on
  // a large stack (ir/large_stack.h), so that the limits qlint predicts are far from it.
  ir::Model import_torchscript(const std::string& path) override {
    return on_large_stack([&] { return torchscript::import_torchscript(path); });
  }

  sim::Report simulate(const std::string& model_path, const sim::Inputs& inputs, const sim::Options& options) override {
    return on_large_stack([&] { return sim::simulate(model_path, inputs, options); });
  }

  std::pair<ir::Model, sim::Report> import_and_simulate(const std::string& path, const sim::Inputs& inputs,
                                                        const sim::Options& options) override {
    return on_large_stack([&] {
      torch::jit::Module module = torchscript::load_torchscript(path);
      ir::Model model = torchscript::import_module(module, path);
      return std::make_pair(std::move(model), sim::simulate(module, path, inputs, options));
    });
  }

  rewriter::FixResult fix_model(const std::string& path, const rewriter::FixOptions& options,
                                const std::function<std::string(const std::string&)>& display) override {
    return on_large_stack([&] { return rewriter::fix_model(path, options, display); });
  }

  // RTLD_GLOBAL, as torch.ops.load_library: the library's static initializers register its
  // operators with the LibTorch this plugin uses.
  void load_library(const std::string& path) override {
    if (dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr)
      throw BackendError("cannot load the operator library " + path + ": " + dlerror());
  }

  void set_limits(const ir::Limits& limits) override { ir::limits() = limits; }

  const ir::PhaseTotals& phase_totals() override { return ir::phase_totals(); }

  void select_quantized_engine(const std::string& name) override {
    try {
      sim::select_quantized_engine(name);
    } catch (const sim::SimError& e) {
      throw BackendError(e.what());
    }
  }
};

}  // namespace
}  // namespace qlint::cli

extern "C" __attribute__((visibility("default"))) qlint::cli::TorchBackend* qlint_torch_backend() {
  static qlint::cli::LibTorchBackend backend;
  return &backend;
}
