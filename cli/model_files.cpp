#include "cli/model_files.h"

#include <string>

namespace qlint::cli {

bool is_model_file(const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  const std::string name = path.filename().string();
  const std::string fx_suffix = ".fx.json";
  return ext == ".pt" || ext == ".pth" || ext == ".ptl" || ext == ".jit" || ext == ".torchscript" ||
         (name.size() > fx_suffix.size() &&
          name.compare(name.size() - fx_suffix.size(), fx_suffix.size(), fx_suffix) == 0);
}

}  // namespace qlint::cli
