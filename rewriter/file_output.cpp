#include "rewriter/file_output.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "ir/input_file.h"

namespace qlint::rewriter {

namespace fs = std::filesystem;

namespace {

fs::path directory_of(const std::string& target) {
  fs::path out(target);
  return out.has_parent_path() ? out.parent_path() : fs::path(".");
}

std::string error_text(int err) { return err == ENOSPC ? "no space left on device" : std::strerror(err); }

}  // namespace

WriteTarget resolve_write_target(const std::string& output, const std::string& input, bool explicit_output) {
  WriteTarget t;
  struct stat link {};
  if (::lstat(output.c_str(), &link) != 0) {
    if (errno != ENOENT) throw FixError(output + ": cannot write there: " + std::strerror(errno));
    t.path = output;
    if (::stat(input.c_str(), &t.st) != 0) throw FixError(input + ": " + std::strerror(errno));
    return t;
  }
  std::error_code ec;
  std::string real = S_ISLNK(link.st_mode) ? fs::canonical(output, ec).string() : output;
  if (ec) throw FixError(output + ": a symbolic link that leads nowhere (" + ec.message() + "); nothing was written");
  if (::stat(real.c_str(), &t.st) != 0) throw FixError(output + ": " + std::strerror(errno));
  if (!S_ISREG(t.st.st_mode))
    throw FixError(output + ": " + (explicit_output ? "-o names " : "") +
                   "something that is not a regular file; qlint writes only regular files or new paths; "
                   "nothing was written");
  t.path = real;
  t.exists = true;
  return t;
}

int sync_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  int err = ::fsync(fd) == 0 ? 0 : errno;
  ::close(fd);
  return err;
}

bool no_space(const std::string& dir) {
  struct statvfs vfs {};
  return ::statvfs(dir.c_str(), &vfs) == 0 && static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize < (1u << 20);
}

TempDir::TempDir(const std::string& target) {
  static std::atomic<int> counter{0};
  fs::path temp =
      directory_of(target) / (".qlint-fix-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".tmp");
  std::error_code ec;
  fs::create_directory(temp, ec);
  if (ec) throw FixError(target + ": cannot write beside it: " + ec.message() + "; nothing was written");
  path = temp.string();
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path, ec);
}

void remove_stale_temps(const std::string& target) {
  std::error_code ec;
  for (auto it = fs::directory_iterator(directory_of(target), ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.rfind(".qlint-fix-", 0) != 0 || name.size() < 16 || name.compare(name.size() - 4, 4, ".tmp") != 0)
      continue;
    auto pid = ir::parse_int(name.substr(11, name.find('-', 11) - 11), 1, INT32_MAX);
    if (!pid || ::kill(static_cast<pid_t>(*pid), 0) == 0 || errno != ESRCH) continue;
    std::error_code rm;
    fs::remove_all(it->path(), rm);
    std::cerr << "qlint: warning: removed " << ir::printable(it->path().string(), 300)
              << ", left by an interrupted qlint --fix\n";
  }
}

void replace_with(const std::string& temp_file, const WriteTarget& target, const std::string& what) {
  ::chmod(temp_file.c_str(), target.st.st_mode & 07777);
  // Another user's file may not be given away: then the group at least, when we are in it.
  if (target.exists && ::chown(temp_file.c_str(), target.st.st_uid, target.st.st_gid) != 0 &&
      ::chown(temp_file.c_str(), static_cast<uid_t>(-1), target.st.st_gid) != 0) {
  }
  if (int err = sync_file(temp_file); err != 0)
    throw FixError(target.path + ": cannot write " + what + ": " + error_text(err) + "; nothing was written");
  std::error_code ec;
  fs::rename(temp_file, target.path, ec);
  if (ec) throw FixError(target.path + ": cannot replace it: " + ec.message());
  sync_file(directory_of(target.path).string());
}

void write_text_file(const std::string& path, const std::string& text) {
  WriteTarget target = resolve_write_target(path, path, false);
  remove_stale_temps(target.path);
  TempDir temp(target.path);
  std::string file = (fs::path(temp.path) / fs::path(target.path).filename()).string();
  {
    std::ofstream out(file, std::ios::binary);
    out << text;
    out.flush();
    if (!out)
      throw FixError(target.path + ": cannot write the fixed source: " +
                     (no_space(temp.path) ? "no space left on device" : "write failed") + "; nothing was written");
  }
  replace_with(file, target, "the fixed source");
}

}  // namespace qlint::rewriter
