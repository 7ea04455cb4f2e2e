// The server's last check of each model, kept so that a model that has not changed is not
// loaded again: an editor announcing a file it did not change, an export that wrote the same
// bytes, a `touch`. "Not changed": the same content (a 64-bit digest of its bytes; reading them
// costs a fraction of LibTorch's load), the same configuration, and every
// Python file its findings and fixes are on unchanged (fixes are edits of those files' text).
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cli/server/findings.h"
#include "cli/server/workspace.h"

namespace qlint::server {

class CheckCache {
 public:
  // The findings of `model`'s last check, when its bytes had `digest` then too (file_digest,
  // taken before each check: a model written while it was checked is checked again) and no
  // Python file they are on changed since.
  std::optional<std::vector<Finding>> unchanged(const std::string& model, uint64_t digest);
  void store(const std::string& model, uint64_t digest, const std::vector<Finding>& findings,
             const std::vector<std::string>& inputs);
  // The configuration changed: every model is checked again.
  void clear();

 private:
  struct Entry {
    uint64_t digest = 0;
    std::map<std::string, std::optional<FileStamp>> sources;
    std::vector<Finding> findings;
  };
  std::mutex mutex_;
  std::map<std::string, Entry> entries_;
};

// A 64-bit digest of a file's bytes; nullopt when it cannot be read.
std::optional<uint64_t> file_digest(const std::string& file);

}  // namespace qlint::server
