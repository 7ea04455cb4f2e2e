// Which `--archive NAME=PATH` gives the path of a `torch::jit::load` whose path is a variable or
// an expression. NAME is the expression as written (`Config::kModelPath`, `argv[1]`), a
// variable's qualified name or a `::` suffix of it, or a local's or parameter's name. A name that
// fits several different namespace-scope or static member variables of the file
// (`DetConfig::kModelPath` and `ReidConfig::kModelPath` for `kModelPath`) gives none of them its
// archive: one path for two models would give one of them a false finding. The same for a
// parameter's or local's name used in several functions (two classes' `model_path`, in one file
// or two), which are told apart by their function's qualified name: `Det::Det::model_path`.
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace qlint::cxx {

struct ArchiveName {
  std::string archive;   // the path an `--archive` gives; "" when none does
  std::string variable;  // how a note names the path when no `--archive` gives it
  // "NAME\nTHIS\nA, B": an `--archive NAME` that fits several variables, the one this path is
  // among them.
  std::string ambiguous;
  // A parameter's or local's name qualified by its function's (`Det::load::model_path`), which a
  // note gives instead of `variable` when that bare name is a load's path in several functions.
  std::string qualified;
};

class ArchiveNames {
 public:
  // `ambiguous`: Options::ambiguous_names.
  ArchiveNames(const std::vector<std::string>& entries, std::map<std::string, std::string> ambiguous = {});

  // The namespace-scope and static member variables the project's own declarations refer to
  // whose names an `--archive` may fit.
  void collect(const std::vector<clang::Decl*>& own);

  // The archive for a path written as `written`; `ref` when it is a variable.
  ArchiveName lookup(const clang::DeclRefExpr* ref, const std::string& written) const;

  // The path an `--archive` gives a string literal's archive (the author's
  // `torch::jit::load("/home/someone/model.pt")`, not on this machine): NAME is the literal's
  // text, bare or in its quotes; "" when no entry names it.
  std::string literal(const std::string& text) const;

  // The `--archive` entries that named something in the file.
  std::vector<std::string> used() const { return {used_.begin(), used_.end()}; }

  // "NAME\nQUALIFIED" for each bare NAME applied to a function's parameter or local
  // (CrossFileFacts::archive_parameters).
  std::set<std::string> parameters() const { return parameters_; }

 private:
  static bool fits(const std::string& key, const std::string& qualified);
  std::vector<std::pair<std::string, std::string>> entries_;           // NAME, PATH
  std::map<std::string, std::set<const clang::VarDecl*>> candidates_;  // by the entry's NAME
  mutable std::set<std::string> used_;
  std::map<std::string, std::string> ambiguous_;  // bare NAME -> the qualified names it fits
  mutable std::set<std::string> parameters_;
};

// How a note names a variable that holds a load's path: as written when qualified, else by its
// qualified name when it is a namespace-scope or static member variable, else by its name.
std::string variable_name(const clang::DeclRefExpr& ref, const std::string& written);

}  // namespace qlint::cxx
