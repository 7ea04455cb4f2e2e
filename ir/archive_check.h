// Checks on a TorchScript archive that run before LibTorch reads it (LibTorch trusts the zip
// directory's sizes and the pickles' length fields): the zip directory against the limits in
// ir::Limits, and a pickle's opcodes and lengths. LibTorch-free, so that they can be fuzzed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace qlint::ir {

struct ZipMember {
  std::string name;
  uint64_t compressed = 0, size = 0, local_offset = 0;
  uint16_t method = 0;  // 0 stored, 8 deflated
};

struct ZipDirectory {
  std::vector<ZipMember> members;
  // The archive's inner folder ("model" of model/data.pkl), as PyTorchStreamReader takes it.
  std::string folder;
};

// Reads the zip directory of `bytes` (the archive's tail is enough when `file_size` says where
// it ends: `bytes` holds the file's last bytes.size() bytes). Throws ImportError with one line
// when it is not a zip, is truncated or corrupt, or exceeds a limit (members, sizes,
// compression ratio).
ZipDirectory read_zip_directory(const std::string& tail, uint64_t file_size);

// The same on a file: reads only its tail (the directory), never the members.
ZipDirectory read_zip_directory_of(const std::string& path);

// The same through `read` (n bytes at an offset; fewer at the end) of a file of `file_size`.
using ReadAt = std::function<std::string(uint64_t offset, uint64_t n)>;
ZipDirectory read_zip_directory_with(const ReadAt& read, uint64_t file_size);

// "" when `pickle` is a well-formed sequence of pickle opcodes up to STOP whose every length
// field fits in the pickle and whose memo indices are sane; else what is wrong, in one line.
// No allocation in proportion to a length field. With `globals`, also the distinct classes and
// functions its GLOBAL opcodes name ("__torch__.torch.classes.quantized.LinearPackedParamsBase"),
// the first kMaxGlobals of them.
inline constexpr size_t kMaxGlobals = 4096;
std::string pickle_problem(const std::string& pickle, std::vector<std::string>* globals = nullptr);

}  // namespace qlint::ir
