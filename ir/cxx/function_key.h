// A name for a function that is the same in every translation unit of a project, so that what
// one file's lowering learns of a function it defines (it returns a model's outputs) can be
// looked up where another file calls it (ir/cxx/importer.cpp carries the facts between files).
#pragma once

#include <clang/AST/Decl.h>

#include <string>

namespace qlint::cxx {

// "Net::predict(const at::Tensor &)", "Net::forward<at::Tensor>(at::Tensor &)", with " const"
// for a const method: the qualified name, template arguments and parameter types, canonical,
// as overloads are told apart.
std::string function_key(const clang::FunctionDecl& fd);

// The function as a user writes it in a message: "Net::predict", "Net::forward<at::Tensor>".
std::string function_display(const clang::FunctionDecl& fd);

// A model field under the same map as the functions: "field Net::module_" (a field's qualified
// name cannot start with "field "), for the file whose method runs a model another file loads.
std::string model_field_key(const clang::FieldDecl& field);

}  // namespace qlint::cxx
