// The C++ front end on Clang LibTooling: parses source files with the flags of a compilation
// database (compile_commands.json, also of projects built with GCC) and lowers each to qlint's
// IR (ir/cxx/lowering.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/cxx/options.h"
#include "ir/ir.h"

namespace qlint::cxx {

struct ImportRequest {
  std::string build_dir;                // holds compile_commands.json; "" with `fixed_args`
  std::vector<std::string> files;       // the sources to check
  std::vector<std::string> extra_args;  // appended to every compile command (--extra-arg)
  // Without a build directory: these compiler arguments for every file (after `--`).
  std::vector<std::string> fixed_args;
  bool use_fixed_args = false;
  // Parsed instead of the file on disk (by absolute path): `qlint cxx --fix` checks its fixed
  // text before writing it.
  std::map<std::string, std::string> overlays;
};

struct ImportedFile {
  std::string file;
  ir::Model model;
  std::string error;  // non-empty: the file could not be parsed (Clang's first error)
};

// Throws ir::ImportError when the compilation database cannot be read.
std::vector<ImportedFile> import_cxx(const ImportRequest& request, const Options& options);

}  // namespace qlint::cxx
