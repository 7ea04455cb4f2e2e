// libFuzzer target: a .qlint.toml through the configuration parser (both file names it knows).
#include <cstddef>
#include <cstdint>
#include <string>

#include "cli/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  for (const char* name : {"/repo/.qlint.toml", "/repo/pyproject.toml"}) {
    try {
      qlint::cli::Config config = qlint::cli::parse_config(text, name);
      config.ignored_for("/repo/models/a.pt");
    } catch (const qlint::cli::ConfigError&) {
    }
  }
  return 0;
}
