// A TorchScript archive read once per load: the probe's safety checks, PyTorchStreamReader and
// torch::jit::load all read the same bytes, so what the checks vetted is what LibTorch loads
// (a file rewritten between the two, as an editor or an export does while the server watches,
// cannot slip past them), and the file is opened once instead of five times.
//
// Archives over kInMemoryArchiveBytes are not held in memory (LibTorch copies every tensor out
// of its record, so that would double the peak): their readers open the file, as before.
#pragma once

#include <caffe2/serialize/read_adapter_interface.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace qlint::torchscript {

inline constexpr uint64_t kInMemoryArchiveBytes = uint64_t{512} << 20;

class ArchiveBytes {
 public:
  // Reads `path` (a regular file, checked by the caller) whole when it is small enough.
  // Throws ImportError when it cannot be read.
  static ArchiveBytes read(const std::string& path);

  const std::string& path() const { return path_; }
  // The bytes, or null for an archive read from its file.
  const std::string* bytes() const { return bytes_.get(); }
  // The first `n` bytes (fewer when the archive is shorter).
  std::string prefix(size_t n) const;
  // A reader for PyTorchStreamReader and torch::jit::load: of the bytes, or of the file.
  std::shared_ptr<caffe2::serialize::ReadAdapterInterface> reader() const;

 private:
  std::string path_;
  std::shared_ptr<const std::string> bytes_;
};

}  // namespace qlint::torchscript
