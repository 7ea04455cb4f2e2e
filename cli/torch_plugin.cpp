// libqlint_torch.so: the TorchBackend over the LibTorch-backed importer, simulator and
// rewriter. Loaded by the qlint binary with dlopen (cli/torch_backend.cpp).
#include <dlfcn.h>

#include "cli/torch_backend.h"
#include "ir/large_stack.h"
#include "ir/torchscript/importer.h"
#include "ir/torchscript/module_import.h"
#include "sim/engine.h"

namespace qlint::cli {
namespace {

class LibTorchBackend final : public TorchBackend {
 public:
  // LibTorch compiles and runs graphs recursively, once per level of what the model holds: on
  // a large stack (ir/large_stack.h), so that the limits qlint predicts are far from it.
  ir::Model import_torchscript(const std::string& path) override {
    return ir::on_large_stack([&] { return torchscript::import_torchscript(path); });
  }

  sim::Report simulate(const std::string& model_path, const sim::Inputs& inputs, const sim::Options& options) override {
    return ir::on_large_stack([&] { return sim::simulate(model_path, inputs, options); });
  }

  std::pair<ir::Model, sim::Report> import_and_simulate(const std::string& path, const sim::Inputs& inputs,
                                                        const sim::Options& options) override {
    return ir::on_large_stack([&] {
      torch::jit::Module module = torchscript::load_torchscript(path);
      ir::Model model = torchscript::import_module(module, path);
      return std::make_pair(std::move(model), sim::simulate(module, path, inputs, options));
    });
  }

  rewriter::FixResult fix_model(const std::string& path, const rewriter::FixOptions& options,
                                const std::function<std::string(const std::string&)>& display) override {
    return ir::on_large_stack([&] { return rewriter::fix_model(path, options, display); });
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
