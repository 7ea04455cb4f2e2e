// Which files are models qlint reads, for directory searches (`qlint check DIR`) and the files
// `qlint server` watches.
#pragma once

#include <filesystem>
#include <string>

namespace qlint::cli {

// TorchScript archives (*.pt, *.pth, *.ptl, *.jit, *.torchscript), FX exports (*.fx.json) and
// ONNX models (*.onnx).
bool is_model_file(const std::filesystem::path& path);

// Whether qlint reads the file as an ONNX model (ir/onnx): its name ends in ".onnx".
bool is_onnx_model(const std::string& path);

// Whether qlint can run the model (simulate it, rewrite it): a TorchScript archive. FX exports
// and ONNX models are checked only.
bool is_runnable_model(const std::string& path);

}  // namespace qlint::cli
