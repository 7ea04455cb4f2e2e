// Everything qlint does with LibTorch, behind one interface. The plugin libqlint_torch.so
// implements it (cli/torch_plugin.cpp); the qlint binary itself does not link LibTorch and
// loads the plugin the first time a command needs it, so `qlint --help`, `qlint rules`,
// `qlint explain` and checks of FX exports start at once instead of after LibTorch's
// half-second start-up.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>

#include "cli/plugin_loader.h"
#include "ir/input_file.h"
#include "ir/ir.h"
#include "ir/timings.h"
#include "rewriter/rewriter.h"
#include "sim/simulator.h"

namespace qlint::cli {

class TorchBackend {
 public:
  virtual ~TorchBackend() = default;
  virtual ir::Model import_torchscript(const std::string& path) = 0;
  virtual sim::Report simulate(const std::string& model_path, const sim::Inputs& inputs,
                               const sim::Options& options) = 0;
  // import_torchscript and simulate on one load of the archive (check --input).
  virtual std::pair<ir::Model, sim::Report> import_and_simulate(const std::string& path, const sim::Inputs& inputs,
                                                                const sim::Options& options) = 0;
  virtual rewriter::FixResult fix_model(const std::string& path, const rewriter::FixOptions& options,
                                        const std::function<std::string(const std::string&)>& display) = 0;
  // Loads a shared library that registers custom operators with LibTorch (as Python's
  // torch.ops.load_library does), such as torchvision's or an accelerator toolchain's.
  // Loading one twice is harmless. Throws BackendError.
  virtual void load_library(const std::string& path) = 0;
  // The plugin has its own copy of the LibTorch-free layers: the limits on untrusted input
  // (ir::limits(), set from the command line) are copied over once, when it is loaded.
  virtual void set_limits(const ir::Limits& limits) = 0;
  // Sets LibTorch's quantized engine ("" for qlint's default, sim/engine.h) before any model is
  // loaded. Throws BackendError when this LibTorch lacks it.
  virtual void select_quantized_engine(const std::string& name) = 0;
  // The time the plugin's copy of the LibTorch-free layers spent per phase (ir/timings.h).
  virtual const ir::PhaseTotals& phase_totals() = 0;
};

// The quantized engine the command line asked for (--engine), given to the plugin when it is
// loaded; "" for the default.
void request_quantized_engine(const std::string& name);

// Loads the plugin on first use, once, from $QLINT_TORCH_PLUGIN, or else beside the binary
// (the build tree) or in ../lib/qlint (an installation). Throws BackendError.
TorchBackend& torch_backend();
// The plugin, if a command has loaded it; else null (never loads it).
TorchBackend* loaded_torch_backend();

}  // namespace qlint::cli

// The plugin's one entry point, looked up with dlsym.
extern "C" qlint::cli::TorchBackend* qlint_torch_backend();
