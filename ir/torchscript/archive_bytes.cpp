#include "ir/torchscript/archive_bytes.h"

#include <caffe2/serialize/file_adapter.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "ir/import_error.h"

namespace qlint::torchscript {

namespace {

class MemoryReader final : public caffe2::serialize::ReadAdapterInterface {
 public:
  explicit MemoryReader(std::shared_ptr<const std::string> bytes) : bytes_(std::move(bytes)) {}
  size_t size() const override { return bytes_->size(); }
  size_t read(uint64_t pos, void* buf, size_t n, const char* /*what*/) const override {
    if (pos >= bytes_->size()) return 0;
    n = std::min<size_t>(n, bytes_->size() - static_cast<size_t>(pos));
    std::memcpy(buf, bytes_->data() + pos, n);
    return n;
  }

 private:
  std::shared_ptr<const std::string> bytes_;
};

// The whole file, or nullopt when it is larger than kInMemoryArchiveBytes. A file that shrinks
// while it is read gives the bytes there were: the checks then find it truncated.
std::optional<std::string> read_whole(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw ir::ImportError("cannot be opened for reading");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw ir::ImportError("is not a regular file; qlint reads only regular files");
  }
  if (static_cast<uint64_t>(st.st_size) > kInMemoryArchiveBytes) {
    ::close(fd);
    return std::nullopt;
  }
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < bytes.size()) {
    ssize_t r = ::pread(fd, bytes.data() + got, bytes.size() - got, static_cast<off_t>(got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      const int error = errno;
      ::close(fd);
      throw ir::ImportError(std::string("cannot be read: ") + std::strerror(error));
    }
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  ::close(fd);
  bytes.resize(got);
  return bytes;
}

}  // namespace

ArchiveBytes ArchiveBytes::read(const std::string& path) {
  ArchiveBytes archive;
  archive.path_ = path;
  if (auto bytes = read_whole(path)) archive.bytes_ = std::make_shared<const std::string>(std::move(*bytes));
  return archive;
}

std::string ArchiveBytes::prefix(size_t n) const {
  if (bytes_) return bytes_->substr(0, n);
  std::ifstream in(path_, std::ios::binary);
  std::string out(n, '\0');
  in.read(out.data(), static_cast<std::streamsize>(n));
  out.resize(static_cast<size_t>(in.gcount()));
  return out;
}

std::shared_ptr<caffe2::serialize::ReadAdapterInterface> ArchiveBytes::reader() const {
  if (bytes_) return std::make_shared<MemoryReader>(bytes_);
  return std::make_shared<caffe2::serialize::FileAdapter>(path_);
}

}  // namespace qlint::torchscript
