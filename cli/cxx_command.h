// `qlint cxx`: lint C++ sources that use LibTorch, through the Clang front end (docs/cxx.md).
#pragma once

#include <string>
#include <vector>

#include "cli/commands.h"

namespace qlint::cli {

struct CxxOptions {
  CheckOptions check;                   // files, format, selection, config, stubs
  std::string build_dir;                // -p: where compile_commands.json is
  std::vector<std::string> extra_args;  // --extra-arg, for every file
  std::vector<std::string> fixed_args;  // after `--`: flags instead of a compilation database
  bool use_fixed_args = false;
  std::vector<std::string> quant_functions;  // --quant-function, then the config's
  std::vector<std::string> archives;         // --archive VAR=PATH
  bool fix = false;                          // --fix: edit the sources
  std::string export_fixes;                  // --export-fixes: clang-apply-replacements YAML
  bool unsafe_fixes = false;
  unsigned jobs = 0;        // -j: files parsed at once; 0: one per core
  std::string files_regex;  // --files: with no files named, the database's files that match
};

int run_cxx(const CxxOptions& options);

}  // namespace qlint::cli
