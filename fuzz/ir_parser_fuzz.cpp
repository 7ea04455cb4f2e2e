// libFuzzer target: qlint's text IR (the test fixtures' format) through the parser, the printer
// and the verifier.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ir/text.h"
#include "ir/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    qlint::ir::ParsedModel parsed = qlint::ir::parse_model(text);
    if (qlint::ir::verify(parsed.model).empty()) qlint::ir::print_model(parsed.model);
  } catch (const qlint::ir::ParseError&) {
  }
  return 0;
}
