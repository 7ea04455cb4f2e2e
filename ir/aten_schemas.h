// The ATen schemas LibTorch registers, captured when qlint was built (ir/cxx/dump_schemas.cpp):
// the C++ and ONNX front ends lower to ATen ops but have no LibTorch of their own to ask.
#pragma once

#include <string>
#include <vector>

namespace qlint::ir {

// The schema of `kind` ("aten::to") whose arguments, after `self` for a method, are named
// `names` in that order and then only arguments with defaults (the C++ API names its
// parameters as the schema does, and leaves trailing defaults out). "" when no overload fits,
// and for `out=` overloads.
std::string matching_schema(const std::string& kind, const std::vector<std::string>& names, bool method);

// The schema of `kind` with overload name `overload` ("" for the default overload:
// `aten::unsqueeze(Tensor(a) self, int dim)`), as LibTorch prints it; "" when there is none.
std::string overload_schema(const std::string& kind, const std::string& overload);

}  // namespace qlint::ir
