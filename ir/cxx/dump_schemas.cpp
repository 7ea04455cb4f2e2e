// Build-time tool: writes every operator schema this LibTorch registers, one C++ string literal
// per line, for the C++ front end (ir/cxx/schemas.cpp), which reads LibTorch's headers through
// Clang but does not load LibTorch itself.
//
//   qlint_dump_schemas OUT.inc
#include <torch/csrc/jit/runtime/operator.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: qlint_dump_schemas OUT.inc\n";
    return 2;
  }
  std::set<std::string> schemas;
  for (const auto& op : torch::jit::getAllOperators()) {
    std::ostringstream text;
    text << op->schema();
    if (text.str().rfind("aten::", 0) == 0) schemas.insert(text.str());
  }
  std::ofstream out(argv[1]);
  for (const auto& s : schemas) out << "R\"qlint(" << s << ")qlint\",\n";
  if (!out) {
    std::cerr << "qlint_dump_schemas: cannot write " << argv[1] << "\n";
    return 1;
  }
  return 0;
}
