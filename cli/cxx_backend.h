// The Clang front end behind one interface: the plugin libqlint_cxx.so implements it
// (cli/cxx_plugin.cpp), so the qlint binary does not load Clang's libraries unless
// `qlint cxx` runs.
#pragma once

#include <vector>

#include "cli/plugin_loader.h"
#include "ir/cxx/importer.h"
#include "ir/input_file.h"

namespace qlint::cli {

class CxxBackend {
 public:
  virtual ~CxxBackend() = default;
  virtual std::vector<cxx::ImportedFile> import_cxx(const cxx::ImportRequest& request, const cxx::Options& options) = 0;
  // Every source file of the compilation database in `build_dir` (cxx::database_files).
  virtual std::vector<std::string> database_files(const std::string& build_dir) = 0;
  // The plugin has its own copy of qlint_ir, and so of ir::limits(): the command line's go here.
  virtual void set_limits(const ir::Limits& limits) = 0;
};

// Loads the plugin on first use, from $QLINT_CXX_PLUGIN or beside the binary or in ../lib/qlint,
// and hands it the limits the command line set. Throws BackendError.
CxxBackend& cxx_backend();

}  // namespace qlint::cli

extern "C" qlint::cli::CxxBackend* qlint_cxx_backend();
