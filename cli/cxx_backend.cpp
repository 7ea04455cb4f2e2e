#include "cli/cxx_backend.h"

#include <mutex>

namespace qlint::cli {

CxxBackend& cxx_backend() {
  CxxBackend& backend = load_backend_once<CxxBackend>("libqlint_cxx.so", "QLINT_CXX_PLUGIN", "qlint_cxx_backend",
                                                      "C++ front end", "C++ front-end plugin");
  static std::once_flag limits_passed;
  std::call_once(limits_passed, [&] { backend.set_limits(ir::limits()); });
  return backend;
}

}  // namespace qlint::cli
