// The ATen schemas LibTorch registers, captured when qlint was built (ir/cxx/dump_schemas.cpp):
// the C++ front end reads LibTorch's headers through Clang but has no LibTorch of its own to ask.
#pragma once

#include <string>
#include <vector>

namespace qlint::cxx {

// The schema of `kind` ("aten::to") whose arguments, after `self` for a method, are named
// `names` in that order and then only arguments with defaults (the C++ API names its
// parameters as the schema does, and leaves trailing defaults out). "" when no overload fits,
// and for `out=` overloads.
std::string matching_schema(const std::string& kind, const std::vector<std::string>& names, bool method);

}  // namespace qlint::cxx
