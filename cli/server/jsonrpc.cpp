#include "cli/server/jsonrpc.h"

#include <algorithm>
#include <cctype>

namespace qlint::server {

namespace {

// Bodies larger than this are no editor's message; refusing them keeps a corrupt length from
// making the server allocate gigabytes.
constexpr size_t kMaxBody = size_t{1} << 30;

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string trimmed(const std::string& s) {
  size_t begin = s.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  size_t end = s.find_last_not_of(" \t\r");
  return s.substr(begin, end - begin + 1);
}

// A Content-Length value: decimal digits only (no sign, no blanks inside), within kMaxBody.
std::optional<size_t> parse_length(const std::string& value) {
  if (value.empty() || value.size() > 12) return std::nullopt;
  size_t n = 0;
  for (char c : value) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<size_t>(c - '0');
  }
  if (n > kMaxBody) return std::nullopt;
  return n;
}

}  // namespace

std::optional<std::string> read_message(std::istream& in) {
  std::optional<size_t> length;
  std::string error;
  bool any_header = false;
  std::string line;
  while (true) {
    if (!std::getline(in, line)) {
      if (!any_header) return std::nullopt;
      throw FramingError("the input ended inside a message header");
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      if (!any_header) continue;  // stray blank lines between messages
      break;
    }
    any_header = true;
    size_t colon = line.find(':');
    if (colon == std::string::npos) {
      if (error.empty()) error = "a header line without a colon: \"" + line.substr(0, 80) + "\"";
      continue;
    }
    std::string name = lowercase(trimmed(line.substr(0, colon)));
    if (name != "content-length") continue;
    length = parse_length(trimmed(line.substr(colon + 1)));
    if (!length && error.empty()) error = "a bad Content-Length: \"" + trimmed(line.substr(colon + 1)) + "\"";
  }
  if (!error.empty()) throw FramingError(error);
  if (!length) throw FramingError("a message header without Content-Length");
  std::string body(*length, '\0');
  in.read(body.data(), static_cast<std::streamsize>(*length));
  if (static_cast<size_t>(in.gcount()) != *length) throw FramingError("the input ended inside a message body");
  return body;
}

std::string frame_message(const std::string& body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

}  // namespace qlint::server
