// Where the project's own functions, methods and constructors are called in a translation unit,
// with the arguments of each call. The C++ front end reads a function once for all of its calls;
// a parameter that names a TorchScript archive (`void load(const std::string& path)`) is known
// only from what those calls pass (ir/cxx/lowering.cpp).
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>

#include <map>
#include <vector>

namespace qlint::cxx {

struct CallSite {
  std::vector<const clang::Expr*> args;         // as the callee's parameters take them (no `this`)
  const clang::FunctionDecl* caller = nullptr;  // the function the call is in; null at namespace scope
  clang::SourceLocation at;
};

class CallSites {
 public:
  // The calls in `decls` (the project's own declarations, with their template instantiations):
  // calls of functions and methods, constructions of objects (`Detector det("a.pt")`, also in a
  // constructor's initializers), and objects built by `std::make_unique<T>(...)` or
  // `std::make_shared<T>(...)`, whose arguments go to T's constructor.
  void collect(const std::vector<clang::Decl*>& decls);

  // The calls of `callee` the unit makes (any declaration of it); empty when it makes none.
  const std::vector<CallSite>& of(const clang::FunctionDecl* callee) const;

 private:
  std::map<const clang::FunctionDecl*, std::vector<CallSite>> sites_;
  friend class CallSiteVisitor;
};

}  // namespace qlint::cxx
