#include "cli/model_files.h"

#include <string>

#include "ir/fx/importer.h"

namespace qlint::cli {

bool is_model_file(const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  const std::string name = path.filename().string();
  const std::string fx_suffix = ".fx.json";
  return ext == ".pt" || ext == ".pth" || ext == ".ptl" || ext == ".jit" || ext == ".torchscript" || ext == ".onnx" ||
         (name.size() > fx_suffix.size() &&
          name.compare(name.size() - fx_suffix.size(), fx_suffix.size(), fx_suffix) == 0);
}

bool is_onnx_model(const std::string& path) {
  const std::string suffix = ".onnx";
  return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_runnable_model(const std::string& path) { return !fx::is_fx_export(path) && !is_onnx_model(path); }

}  // namespace qlint::cli
