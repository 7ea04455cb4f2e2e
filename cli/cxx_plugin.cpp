// libqlint_cxx.so: the C++ front end on Clang LibTooling, loaded by `qlint cxx`
// (cli/cxx_backend.h).
#include "cli/cxx_backend.h"

namespace qlint::cli {
namespace {

class ClangBackend final : public CxxBackend {
 public:
  std::vector<cxx::ImportedFile> import_cxx(const cxx::ImportRequest& request, const cxx::Options& options) override {
    return cxx::import_cxx(request, options);
  }
  std::vector<std::string> database_files(const std::string& build_dir) override {
    return cxx::database_files(build_dir);
  }
  void set_limits(const ir::Limits& limits) override { ir::limits() = limits; }
};

}  // namespace
}  // namespace qlint::cli

extern "C" __attribute__((visibility("default"))) qlint::cli::CxxBackend* qlint_cxx_backend() {
  static qlint::cli::ClangBackend backend;
  return &backend;
}
