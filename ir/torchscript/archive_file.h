// A TorchScript archive opened once per load: the probe's safety checks, PyTorchStreamReader and
// torch::jit::load all read through the same open file (pread on one descriptor), so the file is
// opened once instead of five times, and a file replaced by another (saved by rename, as editors
// and most tools do) while qlint reads it is read whole as it was when opened. A file rewritten
// in place while qlint reads it can still differ between the checks and LibTorch's read.
//
// Not read into memory: that cost as much again as LibTorch's own read (a 100 MB archive is 100
// MB to allocate, fault in and copy), and doubled the peak memory.
#pragma once

#include <caffe2/serialize/read_adapter_interface.h>

#include <cstdint>
#include <memory>
#include <string>

namespace qlint::torchscript {

class ArchiveFile {
 public:
  // Opens `path` (a regular file, checked by the caller). Throws ImportError when it cannot be
  // opened or is no regular file.
  static ArchiveFile open(const std::string& path);

  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }
  // `n` bytes at `offset` (fewer at the end). Throws ImportError on a read error.
  std::string read_at(uint64_t offset, uint64_t n) const;
  // A reader for PyTorchStreamReader and torch::jit::load, of the same open file.
  std::shared_ptr<caffe2::serialize::ReadAdapterInterface> reader() const;

  struct Descriptor;  // closes the file when the last reader is gone

 private:
  std::string path_;
  uint64_t size_ = 0;
  std::shared_ptr<const Descriptor> fd_;
};

}  // namespace qlint::torchscript
