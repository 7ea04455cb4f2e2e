#include "ir/cxx/function_key.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/DeclCXX.h>
#include <llvm/Support/raw_ostream.h>

namespace qlint::cxx {

std::string function_display(const clang::FunctionDecl& fd) {
  std::string name;
  llvm::raw_string_ostream out(name);
  fd.getNameForDiagnostic(out, fd.getASTContext().getPrintingPolicy(), /*Qualified=*/true);
  return out.str();
}

std::string function_key(const clang::FunctionDecl& fd) {
  std::string key = function_display(fd) + "(";
  for (unsigned i = 0; i < fd.getNumParams(); ++i)
    key += (i == 0 ? "" : ", ") + fd.getParamDecl(i)->getType().getCanonicalType().getAsString();
  key += ")";
  if (const auto* method = clang::dyn_cast<clang::CXXMethodDecl>(&fd); method != nullptr && method->isConst())
    key += " const";
  return key;
}

std::string model_field_key(const clang::FieldDecl& field) { return "field " + field.getQualifiedNameAsString(); }

}  // namespace qlint::cxx
