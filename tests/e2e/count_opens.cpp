// For the tests, preloaded into qlint (LD_PRELOAD): each open of a file whose path ends with
// $QLINT_TEST_WATCH appends one line to $QLINT_TEST_OPENS, whoever opens it (qlint, LibTorch,
// libstdc++'s streams). qlint ends with _Exit, so the count is written as it goes.
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace {

using OpenFn = int (*)(const char*, int, ...);
using OpenAtFn = int (*)(int, const char*, int, ...);
using FopenFn = FILE* (*)(const char*, const char*);

template <typename Fn>
Fn next(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

void note(const char* path) {
  const char* watch = std::getenv("QLINT_TEST_WATCH");
  const char* log = std::getenv("QLINT_TEST_OPENS");
  if (watch == nullptr || log == nullptr || path == nullptr) return;
  size_t n = std::strlen(path), w = std::strlen(watch);
  if (n < w || std::strcmp(path + n - w, watch) != 0) return;
  int fd = next<OpenFn>("open")(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  std::string_view line = "open\n";
  (void)!::write(fd, line.data(), line.size());
  ::close(fd);
}

// Notes the open and makes it: `lead` is openat's directory, when there is one.
template <typename Fn, typename... Lead>
int forward(const char* name, const char* path, int flags, va_list args, Lead... lead) {
  mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(args, int) : 0;
  note(path);
  return next<Fn>(name)(lead..., path, flags, mode);
}

}  // namespace

extern "C" {

int open(const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  int fd = forward<OpenFn>("open", path, flags, args);
  va_end(args);
  return fd;
}

int open64(const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  int fd = forward<OpenFn>("open64", path, flags, args);
  va_end(args);
  return fd;
}

int openat(int dir, const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  int fd = forward<OpenAtFn>("openat", path, flags, args, dir);
  va_end(args);
  return fd;
}

int openat64(int dir, const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  int fd = forward<OpenAtFn>("openat64", path, flags, args, dir);
  va_end(args);
  return fd;
}

FILE* fopen(const char* path, const char* how) {
  note(path);
  return next<FopenFn>("fopen")(path, how);
}

FILE* fopen64(const char* path, const char* how) {
  note(path);
  return next<FopenFn>("fopen64")(path, how);
}

}  // extern "C"
