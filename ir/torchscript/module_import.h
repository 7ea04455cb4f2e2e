// The importer's LibTorch-facing entry points, for code that already works with LibTorch
// (the simulator and the rewriter). Everything else uses importer.h.
#pragma once

#include <torch/script.h>

#include <string>

#include "ir/ir.h"
#include "ir/torchscript/importer.h"

namespace qlint::torchscript {

// probe_archive, then torch::jit::load; throws ImportError naming the problem.
torch::jit::Module load_torchscript(const std::string& path);

// The first line of a LibTorch error, without its C++ backtrace: what users may see.
std::string error_summary(const c10::Error& e);

// Imports a loaded module. The IR nodes' `origin` points at the module's graph nodes, valid
// while the module lives and its graphs are not changed.
ir::Model import_module(const torch::jit::Module& module, const std::string& path);

}  // namespace qlint::torchscript
