// Lowers the tensor code of a translation unit's functions into qlint's IR: one Function per
// C++ function with a body in the main file, LibTorch's operators and methods as the aten:: ops
// the other front ends produce, and each quantizing call as a quant point of its own. Used by
// the LibTooling front end (ir/cxx/importer.h) and the compiler plugin.
#pragma once

#include <clang/AST/ASTContext.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/cxx/options.h"
#include "ir/ir.h"

namespace qlint::cxx {

// `archives_named`, when given, gets the `--archive` entries (Options::archives) the unit's code
// names, so that one that names nothing in any checked file can be said.
// What a file tells the others (ir/cxx/importer.cpp): the functions it defines that return a
// model's outputs, the keys of the functions it calls and does not define, the models' outputs
// it passes to those, and the functions another file can call.
struct CrossFileFacts {
  std::map<std::string, ReturnedModel> returns_model;
  std::set<std::string> calls_elsewhere;
  // "NAME\nQUALIFIED" for each bare `--archive NAME` applied to a function's parameter or local,
  // so that one applied in several functions is found ambiguous (Options::ambiguous_names).
  std::set<std::string> archive_parameters;
  // Options::passed_models, as this file's calls pass them.
  std::map<std::string, std::map<size_t, ReturnedModel>> passes_model;
  std::set<std::string> defines;  // by function_key
};

ir::Model lower_translation_unit(clang::ASTContext& context, const Options& options,
                                 std::vector<std::string>* archives_named = nullptr, CrossFileFacts* facts = nullptr);

}  // namespace qlint::cxx
