// libFuzzer target: an ONNX model's bytes through the importer (protobuf's parser, ONNX's checker
// and shape inference, the lowering to qlint's IR), the IR verifier, the analyses and every rule
// (what `qlint check model.onnx` does). Seeded with the exported ONNX examples.
#include <cstddef>
#include <cstdint>
#include <string>

#include "analysis/facts.h"
#include "ir/import_error.h"
#include "ir/onnx/importer.h"
#include "ir/verifier.h"
#include "rules/registry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    qlint::ir::Model model = qlint::onnx::import_onnx_bytes(bytes, "fuzz.onnx");
    if (!qlint::ir::verify(model).empty()) return 0;  // reported by qlint as malformed
    auto facts = qlint::analysis::Facts::compute(model, {});
    qlint::rules::run_all(facts);
  } catch (const qlint::ir::ImportError&) {
  }
  return 0;
}
