// The C++ front end on Clang LibTooling: parses source files with the flags of a compilation
// database (compile_commands.json, also of projects built with GCC) and lowers each to qlint's
// IR (ir/cxx/lowering.h).
#pragma once

#include <functional>
#include <map>
#include <set>
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
  // Files parsed at once, each in a child process of its own (run-clang-tidy's -j).
  unsigned jobs = 1;
  // Called as each file is done (`done` of `total`), in the parent process.
  std::function<void(size_t done, size_t total, const std::string& file)> progress;
};

struct ImportedFile {
  std::string file;
  ir::Model model;
  std::string error;  // non-empty: the file could not be parsed (Clang's first error)
  // With an error: the model holds the functions Clang parsed without one (a file that does
  // not compile still gets findings there, as clang-tidy's do).
  bool partial = false;
  // The `--archive` entries the file's code names (Options::archives).
  std::vector<std::string> archives_named;
  // What the file tells the others, and the functions it calls that it does not define
  // (CrossFileFacts): a call of another file's function that returns a model's outputs is
  // that model's run (import_cxx parses the caller again, told of it).
  std::map<std::string, ReturnedModel> returns_model;
  std::set<std::string> calls_elsewhere;
  std::set<std::string> archive_parameters;                             // CrossFileFacts::archive_parameters
  std::map<std::string, std::map<size_t, ReturnedModel>> passes_model;  // CrossFileFacts::passes_model
  std::set<std::string> defines;                                        // CrossFileFacts::defines
};

// Throws ir::ImportError when the compilation database cannot be read.
std::vector<ImportedFile> import_cxx(const ImportRequest& request, const Options& options);

// Every source file the compilation database in `build_dir` lists (absolute paths, sorted,
// each once). Throws ir::ImportError when it cannot be read.
std::vector<std::string> database_files(const std::string& build_dir);

}  // namespace qlint::cxx
