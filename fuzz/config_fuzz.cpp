// libFuzzer target: a .qlint.toml through the configuration parser (both file names it knows).
//
// Structured mode, for the deep inputs byte mutations rarely build: an input starting with 0xFF
// repeats a piece N times (N from the next two bytes, times 16: up to about a million) in one of
// four shapes: a dotted key, a table header, nested arrays, nested inline tables; the rest of
// the input follows.
#include <cstddef>
#include <cstdint>
#include <string>

#include "cli/config.h"

namespace {

std::string structured(const uint8_t* data, size_t size) {
  const size_t n = ((size_t{data[1]} << 8) | data[2]) * 16;
  const std::string rest(reinterpret_cast<const char*>(data + 4), size - 4);
  std::string out;
  switch (data[3] % 4) {
    case 0:
      out = "a";
      for (size_t i = 0; i < n; ++i) out += ".a";
      return out + " = 1\n" + rest;
    case 1:
      out = "[t";
      for (size_t i = 0; i < n; ++i) out += ".t";
      return out + "]\n" + rest;
    case 2:
      return "x = " + std::string(n, '[') + rest + std::string(n, ']') + "\n";
    default:
      out = "x = ";
      for (size_t i = 0; i < n; ++i) out += "{a = ";
      return out + "1" + std::string(n, '}') + "\n" + rest;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text =
      size >= 4 && data[0] == 0xFF ? structured(data, size) : std::string(reinterpret_cast<const char*>(data), size);
  for (const char* name : {"/repo/.qlint.toml", "/repo/pyproject.toml"}) {
    try {
      qlint::cli::Config config = qlint::cli::parse_config(text, name);
      config.ignored_for("/repo/models/a.pt");
    } catch (const qlint::cli::ConfigError&) {
    }
  }
  return 0;
}
