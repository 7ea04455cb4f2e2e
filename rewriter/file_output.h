// Writing over a user's file without harming it, for `--fix` on models and `qlint cxx --fix` on
// C++ sources: through a symbolic link to its target (the link stays), only over a regular file
// or onto a new path, by way of a temporary file beside it that is synced and renamed over the
// original, keeping the replaced file's mode and (where the process may) owner. No LibTorch.
#pragma once

#include <sys/stat.h>

#include <string>

#include "rewriter/rewriter.h"

namespace qlint::rewriter {

// The file a write replaces, and what the written file must keep.
struct WriteTarget {
  std::string path;  // the regular file to replace (a link's target), or the new path
  bool exists = false;
  struct stat st {};  // of the existing file, or of `input` for a new path
};

// Where writing `output` goes. `explicit_output`: the user named it with -o (said in errors).
// Throws FixError for anything but a regular file or a new path.
WriteTarget resolve_write_target(const std::string& output, const std::string& input, bool explicit_output);

// fsync, reporting the error (0 or an errno): a full disk may show only here.
int sync_file(const std::string& path);

// Less than a MiB free where `dir` is.
bool no_space(const std::string& dir);

// A fresh directory beside `target` for the temporary file, removed with everything in it
// when this object goes (on every error path). ".qlint-fix-PID-N.tmp": unique per process and
// call, so that remove_stale_temps can tell a killed run's directory.
struct TempDir {
  explicit TempDir(const std::string& target);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string path;
};

// Removes, and names on stderr, the temporary directories of runs that were killed beside
// `target` (their process is gone).
void remove_stale_temps(const std::string& target);

// Moves `temp_file` over the target, durably, with the target's mode and owner. `what` names
// the content in errors ("the fixed model"). Throws FixError; then the target is unchanged.
void replace_with(const std::string& temp_file, const WriteTarget& target, const std::string& what);

// All of the above for a text file: `path` (or its link's target) becomes `text`.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace qlint::rewriter
