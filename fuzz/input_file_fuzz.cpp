// libFuzzer target: what the simulator's input-file reader (sim/inputs.cpp) checks before
// LibTorch's unpickler sees a torch.save file: the pickle scan (length fields, memo indices,
// opcodes) on the raw bytes, and the zip directory of the zip format.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ir/archive_check.h"
#include "ir/import_error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  qlint::ir::pickle_problem(bytes);
  if (bytes.rfind("PK", 0) == 0) {
    try {
      qlint::ir::read_zip_directory(bytes.substr(bytes.size() / 2), bytes.size());  // a tail only
    } catch (const qlint::ir::ImportError&) {
    }
  }
  return 0;
}
