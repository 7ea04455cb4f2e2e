// The server's last check of each model, kept so that a model that has not changed is not
// loaded again: an editor announcing a file it did not change, an export that wrote the same
// bytes, a `touch`. "Not changed": the same content (a 64-bit digest of its bytes; reading them
// costs a fraction of LibTorch's load), the same configuration, and every file its check read
// unchanged: the Python sources (suppressions, fixes' edits), the inputs it was simulated on. A
// check that failed is not kept (what failed may lie outside the archive).
#pragma once

#include <filesystem>
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
  // Taken before a check starts: a store made with it is dropped when the configuration changed
  // meanwhile (clear), or when a file the check read was written since.
  struct Ticket {
    uint64_t epoch = 0;
    std::filesystem::file_time_type started;
  };
  Ticket ticket();

  // The findings of `model`'s last check, when its bytes had `digest` then too (file_digest,
  // taken before each check: a model written while it was checked is checked again) and no
  // Python file they are on changed since.
  std::optional<std::vector<Finding>> unchanged(const std::string& model, uint64_t digest);
  void store(const std::string& model, uint64_t digest, const Ticket& ticket, const std::vector<Finding>& findings,
             const std::vector<std::string>& files_read);
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
  uint64_t epoch_ = 0;
};

// A 64-bit digest of a file's bytes; nullopt when it cannot be read.
std::optional<uint64_t> file_digest(const std::string& file);

}  // namespace qlint::server
