#include "cli/cxx_backend.h"

namespace qlint::cli {

CxxBackend& cxx_backend() {
  return load_backend_once<CxxBackend>("libqlint_cxx.so", "QLINT_CXX_PLUGIN", "qlint_cxx_backend", "C++ front end",
                                       "C++ front-end plugin");
}

}  // namespace qlint::cli
