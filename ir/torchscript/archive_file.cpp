#include "ir/torchscript/archive_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "ir/import_error.h"
#include "ir/input_file.h"

namespace qlint::torchscript {

struct ArchiveFile::Descriptor {
  explicit Descriptor(int fd) : fd(fd) {}
  ~Descriptor() { ::close(fd); }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int fd;
};

namespace {

class DescriptorReader final : public caffe2::serialize::ReadAdapterInterface {
 public:
  DescriptorReader(std::shared_ptr<const ArchiveFile::Descriptor> fd, uint64_t size)
      : fd_(std::move(fd)), size_(size) {}
  size_t size() const override { return static_cast<size_t>(size_); }
  size_t read(uint64_t pos, void* buf, size_t n, const char* /*what*/) const override {
    if (pos >= size_) return 0;
    return ir::pread_fully(fd_->fd, pos, buf, std::min<uint64_t>(n, size_ - pos));
  }

 private:
  std::shared_ptr<const ArchiveFile::Descriptor> fd_;
  uint64_t size_;
};

}  // namespace

ArchiveFile ArchiveFile::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw ir::ImportError("cannot be opened for reading");
  auto descriptor = std::make_shared<const Descriptor>(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    throw ir::ImportError("is not a regular file; qlint reads only regular files");
  ArchiveFile archive;
  archive.path_ = path;
  archive.size_ = static_cast<uint64_t>(st.st_size);
  archive.fd_ = std::move(descriptor);
  return archive;
}

std::string ArchiveFile::read_at(uint64_t offset, uint64_t n) const {
  if (offset >= size_) return "";
  std::string out(static_cast<size_t>(std::min<uint64_t>(n, size_ - offset)), '\0');
  out.resize(ir::pread_fully(fd_->fd, offset, out.data(), out.size()));
  return out;
}

std::shared_ptr<caffe2::serialize::ReadAdapterInterface> ArchiveFile::reader() const {
  return std::make_shared<DescriptorReader>(fd_, size_);
}

}  // namespace qlint::torchscript
