#include "ir/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "ir/import_error.h"

namespace qlint::ir {

namespace {

namespace fs = std::filesystem;

struct LimitField {
  const char* name;
  uint64_t Limits::*field;
  const char* unit;  // "bytes" prints as KiB/MiB/GiB
};

const LimitField kLimitFields[] = {
    {"archive-bytes", &Limits::archive_bytes, "bytes"},
    {"archive-member-bytes", &Limits::archive_member_bytes, "bytes"},
    {"archive-members", &Limits::archive_members, ""},
    {"chain-length", &Limits::chain_length, ""},
    {"column", &Limits::column, ""},
    {"compression-ratio", &Limits::compression_ratio, ""},
    {"file-bytes", &Limits::file_bytes, "bytes"},
    {"graph-nodes", &Limits::graph_nodes, ""},
    {"json-depth", &Limits::json_depth, ""},
    {"line", &Limits::line, ""},
    {"parse-seconds", &Limits::parse_seconds, ""},
    {"pickle-bytes", &Limits::pickle_bytes, "bytes"},
    {"snippet-chars", &Limits::snippet_chars, ""},
    {"source-file-bytes", &Limits::source_file_bytes, "bytes"},
};

std::string amount(uint64_t value, bool bytes) {
  if (!bytes) return std::to_string(value);
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && value >= 1024 && value % 1024 == 0) {
    value /= 1024;
    ++u;
  }
  return std::to_string(value) + " " + units[u];
}

bool is_bytes_limit(const std::string& name) {
  for (const auto& f : kLimitFields)
    if (name == f.name) return std::string(f.unit) == "bytes";
  return false;
}

uint64_t limit_value(const std::string& name) {
  for (const auto& f : kLimitFields)
    if (name == f.name) return limits().*f.field;
  return 0;
}

// Whether `path` (canonical) lies in `dir` (canonical).
bool is_under(const fs::path& path, const fs::path& dir) {
  if (dir.empty()) return false;
  auto p = path.begin();
  for (auto d = dir.begin(); d != dir.end(); ++d, ++p) {
    if (d->empty()) continue;  // a trailing separator
    if (p == path.end() || *p != *d) return false;
  }
  return true;
}

fs::path canonical_or_empty(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::canonical(p, ec);
  return ec ? fs::path() : c;
}

// The repository a directory is in: its nearest ancestor with a .git entry, if any.
fs::path repository_of(const fs::path& dir) {
  std::error_code ec;
  for (fs::path d = dir; !d.empty(); d = d.parent_path()) {
    if (fs::exists(d / ".git", ec)) return d;
    if (d == d.parent_path()) break;
  }
  return {};
}

bool allowed_source(const fs::path& file, const std::string& model_file) {
  std::error_code ec;
  fs::path cwd = canonical_or_empty(fs::current_path(ec));
  if (is_under(file, cwd) || is_under(file, repository_of(cwd))) return true;
  if (!model_file.empty()) {
    fs::path dir = canonical_or_empty(fs::absolute(model_file, ec).parent_path());
    if (is_under(file, dir) || is_under(file, repository_of(dir))) return true;
  }
  for (const auto& root : limits().source_roots)
    if (is_under(file, canonical_or_empty(root))) return true;
  return false;
}

}  // namespace

std::string known_limits() {
  std::string out;
  for (const auto& f : kLimitFields) out += (out.empty() ? "" : ", ") + std::string(f.name);
  return out;
}

Limits& limits() {
  static Limits l;
  return l;
}

void set_limit(Limits& l, const std::string& assignment) {
  auto eq = assignment.find('=');
  std::string name = assignment.substr(0, eq);
  for (const auto& f : kLimitFields) {
    if (name != f.name) continue;
    std::string value = eq == std::string::npos ? "" : assignment.substr(eq + 1);
    uint64_t scale = 1;
    if (!value.empty() && std::strchr("kKmMgG", value.back()) != nullptr) {
      char s = static_cast<char>(std::tolower(static_cast<unsigned char>(value.back())));
      scale = s == 'k' ? 1ull << 10 : s == 'm' ? 1ull << 20 : 1ull << 30;
      value.pop_back();
    }
    auto n = parse_int(value, 1, INT64_MAX);
    if (!n || static_cast<uint64_t>(*n) > UINT64_MAX / scale)
      throw std::invalid_argument("--limit " + assignment + ": the value must be a positive integer (K, M, G allowed)");
    l.*f.field = static_cast<uint64_t>(*n) * scale;
    return;
  }
  throw std::invalid_argument("--limit " + assignment + ": no such limit (known: " + known_limits() + ")");
}

std::string limit_error(const std::string& what, const std::string& limit, uint64_t value) {
  bool bytes = is_bytes_limit(limit);
  return what + (value > 0 ? " (" + amount(value, false) + (bytes ? " bytes" : "") + ")" : "") + " exceeds the limit " +
         limit + " (" + amount(limit_value(limit), bytes) + "); raise it with --limit " + limit + "=N";
}

size_t pread_fully(int fd, uint64_t offset, void* buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::pread(fd, static_cast<char*>(buf) + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw ImportError(std::string("cannot be read: ") + std::strerror(errno));
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  return got;
}

void check_regular_file(const std::string& path, uint64_t max_bytes, const std::string& limit_name) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    int err = errno;
    if (err == ELOOP) throw ImportError("is a loop of symbolic links (too many levels of symbolic links)");
    if (err == ENOENT) {
      struct stat link {};
      if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
        throw ImportError("no such file (a symbolic link to a missing file)");
      throw ImportError("no such file");
    }
    throw ImportError(std::string("cannot be read: ") + std::strerror(err));
  }
  if (S_ISDIR(st.st_mode)) throw ImportError("is a directory");
  if (S_ISFIFO(st.st_mode)) throw ImportError("is not a regular file (a FIFO); qlint reads only regular files");
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
    throw ImportError("is not a regular file (a device); qlint reads only regular files");
  if (!S_ISREG(st.st_mode)) throw ImportError("is not a regular file; qlint reads only regular files");
  if (static_cast<uint64_t>(st.st_size) > max_bytes)
    throw ImportError(limit_error("is " + std::to_string(st.st_size) + " bytes, which", limit_name, 0));
  if (::access(path.c_str(), R_OK) != 0) throw ImportError("cannot be opened for reading: permission denied");
}

std::optional<std::string> read_source_file(const std::string& file, const std::string& model_file) {
  if (file.empty()) return std::nullopt;
  fs::path real = canonical_or_empty(file);
  if (real.empty() || !allowed_source(real, model_file)) return std::nullopt;
  // O_NONBLOCK: a FIFO swapped in after the check must not hang the open.
  int fd = ::open(real.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_size) > limits().source_file_bytes) {
    ::close(fd);
    return std::nullopt;
  }
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < bytes.size()) {
    ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  bytes.resize(got);
  if (bytes.find('\0') != std::string::npos) return std::nullopt;  // not text
  return bytes;
}

bool is_project_file(const std::string& file, const std::string& model_file) {
  fs::path resolved = canonical_or_empty(file);
  return !resolved.empty() && allowed_source(resolved, model_file);
}

std::optional<std::string> read_source_line(const std::string& file, int64_t line, const std::string& model_file) {
  if (line < 1 || static_cast<uint64_t>(line) > limits().line) return std::nullopt;
  auto content = read_source_file(file, model_file);
  if (!content) return std::nullopt;
  const std::string& bytes = *content;
  size_t start = 0;
  for (int64_t i = 1; i < line; ++i) {
    start = bytes.find('\n', start);
    if (start == std::string::npos) return std::nullopt;
    ++start;
  }
  size_t end = bytes.find('\n', start);
  std::string text = bytes.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (!text.empty() && text.back() == '\r') text.pop_back();
  return text;
}

bool valid_utf8(const std::string& text) {
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > text.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

std::string printable(const std::string& text, size_t max_chars) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  size_t chars = 0, i = 0;
  while (i < text.size()) {
    if (chars >= max_chars) {
      out += "...";
      break;
    }
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = n > 0 && i + n <= text.size();
    for (size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    if (ok && n == 1 && (c < 0x20 || c == 0x7F) && c != '\t') ok = false;
    if (ok && n == 3 && c == 0xE2 && static_cast<unsigned char>(text[i + 1]) == 0x80 &&
        (static_cast<unsigned char>(text[i + 2]) & 0xF0) == 0xA0 && static_cast<unsigned char>(text[i + 2]) >= 0xAA)
      ok = false;  // bidirectional overrides (U+202A..U+202F) would reorder the line
    if (!ok) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
      ++i;
    } else {
      out.append(text, i, n);
      i += n;
    }
    ++chars;
  }
  return out;
}

std::optional<std::pair<std::string, int>> traced_frame(const std::string& entry, bool any_line) {
  size_t close = entry.rfind("): ");
  if (close == std::string::npos) return std::nullopt;
  std::string function = entry.substr(close + 3);
  if (function.empty() || function.find_first_of(" \t\r\n") != std::string::npos) return std::nullopt;
  size_t open = entry.rfind('(', close);
  if (open == std::string::npos) return std::nullopt;
  std::string digits = entry.substr(open + 1, close - open - 1);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  auto line = parse_int(digits, 1, static_cast<int64_t>(std::min<uint64_t>(limits().line, INT32_MAX)));
  if (!line && any_line) return std::make_pair(entry.substr(0, open), 0);
  if (!line) return std::nullopt;
  return std::make_pair(entry.substr(0, open), static_cast<int>(*line));
}

std::optional<int64_t> parse_int(const std::string& text, int64_t lo, int64_t hi) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || text.empty() || v < lo || v > hi) return std::nullopt;
  return v;
}

}  // namespace qlint::ir
