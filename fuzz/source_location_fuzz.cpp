// libFuzzer target: source-location recovery from debug info, the LibTorch-free part: traced
// stack frames ("file(line): function"), line and column numbers, completing a range on its
// source line, and making a line printable.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "ir/input_file.h"
#include "ir/source_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 8) return 0;
  qlint::ir::SourceLoc loc;
  auto word = [&](size_t at) {
    int32_t v = 0;
    for (size_t i = 0; i < 4; ++i) v = static_cast<int32_t>(static_cast<uint32_t>(v) << 8 | data[at + i]);
    return v;
  };
  loc.file = "f.py";
  loc.line = loc.end_line = 1;
  loc.column = word(0);  // anything an archive or an export may claim
  loc.end_column = word(4);
  std::string text(reinterpret_cast<const char*>(data) + 8, size - 8);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    qlint::ir::traced_frame(line);
    qlint::ir::printable(line, 80);
    qlint::ir::complete_range(line, loc);
  }
  return 0;
}
