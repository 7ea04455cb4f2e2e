// The importer's LibTorch-facing entry points, for code that already works with LibTorch
// (the simulator and the rewriter). Everything else uses importer.h.
#pragma once

#include <torch/csrc/jit/serialization/import.h>
#include <torch/script.h>

#include <string>

#include "ir/ir.h"
#include "ir/torchscript/importer.h"

namespace qlint::torchscript {

// What loading learnt about the archive, for writing it back (--fix).
struct LoadDetails {
  torch::jit::ExtraFilesMap extra_files;  // torch.jit.save's _extra_files, kept by --fix
  std::string folder;                     // the archive's inner folder name
  bool debug_info_dropped = false;        // corrupt debug info: loaded without it
};

// probe_archive, then torch::jit::load; throws ImportError naming the problem (never a
// LibTorch exception). Archive code that prints while loading (a __setstate__) prints to
// stderr, never to stdout.
torch::jit::Module load_torchscript(const std::string& path, LoadDetails* details = nullptr);

// The first line of a LibTorch error, without its C++ backtrace: what users may see.
std::string error_summary(const c10::Error& e);

// Imports a loaded module. The IR nodes' `origin` points at the module's graph nodes, valid
// while the module lives and its graphs are not changed.
ir::Model import_module(const torch::jit::Module& module, const std::string& path);

}  // namespace qlint::torchscript
