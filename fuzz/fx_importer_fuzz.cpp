// libFuzzer target: an FX export's JSON through the importer, the IR verifier, the analyses and
// every rule (what `qlint check model.fx.json` does). With fuzz/fx.dict, libFuzzer mutates the
// export's structure (keys, ops, nesting), not only its bytes.
#include <cstddef>
#include <cstdint>
#include <string>

#include "analysis/facts.h"
#include "ir/fx/importer.h"
#include "ir/import_error.h"
#include "ir/verifier.h"
#include "rules/registry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    qlint::ir::Model model = qlint::fx::import_fx_text(text, "fuzz.fx.json");
    if (!qlint::ir::verify(model).empty()) return 0;  // reported by qlint as malformed
    auto facts = qlint::analysis::Facts::compute(model, {});
    qlint::rules::run_all(facts);
  } catch (const qlint::ir::ImportError&) {
  }
  return 0;
}
