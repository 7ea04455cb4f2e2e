// libFuzzer target: the archive probe's LibTorch-free checks, which run before LibTorch reads
// an archive: the zip directory (sizes, offsets, zip64, limits) and the pickle scan of its
// stored pickles.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ir/archive_check.h"
#include "ir/import_error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    qlint::ir::ZipDirectory dir = qlint::ir::read_zip_directory(bytes, bytes.size());
    for (const auto& m : dir.members)
      if (m.method == 0 && m.local_offset + 30 + m.name.size() <= bytes.size())
        qlint::ir::pickle_problem(bytes.substr(m.local_offset + 30 + m.name.size(), m.size));
  } catch (const qlint::ir::ImportError&) {
  }
  return 0;
}
