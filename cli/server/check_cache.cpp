#include "cli/server/check_cache.h"

#include <filesystem>
#include <fstream>

namespace qlint::server {

std::optional<uint64_t> file_digest(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  uint64_t h = 1469598103934665603ull;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) {
      h ^= static_cast<unsigned char>(buffer[i]);
      h *= 1099511628211ull;
    }
    if (!in) break;
  }
  return h;
}

std::optional<std::vector<Finding>> CheckCache::unchanged(const std::string& model, uint64_t digest) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto it = entries_.find(model);
  if (it == entries_.end() || it->second.digest != digest) return std::nullopt;
  const Entry entry = it->second;
  lock.unlock();
  for (const auto& [source, stamp] : entry.sources)
    if (FileStamp::of(source) != stamp) return std::nullopt;
  return entry.findings;
}

void CheckCache::store(const std::string& model, uint64_t digest, const std::vector<Finding>& findings,
                       const std::vector<std::string>& inputs) {
  Entry entry;
  entry.digest = digest;
  for (const Finding& f : findings)
    if (f.path != model) entry.sources.emplace(f.path, FileStamp::of(f.path));
  for (const std::string& input : inputs) entry.sources.emplace(input, FileStamp::of(input));
  entry.findings = findings;
  std::lock_guard<std::mutex> lock(mutex_);
  entries_[model] = std::move(entry);
}

void CheckCache::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.clear();
}

}  // namespace qlint::server
