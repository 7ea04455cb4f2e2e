// Which files are models qlint reads, for directory searches (`qlint check DIR`) and the files
// `qlint server` watches.
#pragma once

#include <filesystem>

namespace qlint::cli {

// TorchScript archives (*.pt, *.pth, *.ptl, *.jit, *.torchscript) and FX exports (*.fx.json).
bool is_model_file(const std::filesystem::path& path);

}  // namespace qlint::cli
