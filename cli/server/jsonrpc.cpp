#include "cli/server/jsonrpc.h"

#include <algorithm>
#include <cctype>

namespace qlint::server {

namespace {

// Whatever the header says, the body is read in pieces as it arrives: a declared length costs
// nothing until its bytes come.
constexpr size_t kChunk = 64 * 1024;

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

// A Content-Length value: decimal digits only (no sign, no blanks inside).
std::optional<size_t> parse_length(const std::string& value) {
  if (value.empty() || value.size() > 12) return std::nullopt;
  size_t n = 0;
  for (char c : value) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<size_t>(c - '0');
  }
  return n;
}

enum class LineRead { kLine, kEnd, kTooLong };

// One header line without its line break, at most kMaxHeaderLine bytes kept; a longer line is
// consumed to its end (in constant memory) and reported.
LineRead read_header_line(std::istream& in, std::string& line) {
  line.clear();
  std::streambuf* buf = in.rdbuf();
  bool too_long = false, any = false;
  for (int c; (c = buf->sbumpc()) != std::char_traits<char>::eof();) {
    any = true;
    if (c == '\n') return too_long ? LineRead::kTooLong : LineRead::kLine;
    if (line.size() < kMaxHeaderLine)
      line.push_back(static_cast<char>(c));
    else
      too_long = true;
  }
  in.setstate(std::ios::eofbit);
  if (!any) return LineRead::kEnd;
  return too_long ? LineRead::kTooLong : LineRead::kLine;  // a last line without its break
}

// `length` bytes of body as they arrive, or all that came before the end of the input.
std::string read_body(std::istream& in, size_t length) {
  std::string body;
  char chunk[kChunk];
  while (body.size() < length) {
    in.read(chunk, static_cast<std::streamsize>(std::min(kChunk, length - body.size())));
    if (in.gcount() <= 0) break;
    body.append(chunk, static_cast<size_t>(in.gcount()));
  }
  return body;
}

// Skips `length` bytes without keeping them; whether they all came.
bool skip_body(std::istream& in, size_t length) {
  char chunk[kChunk];
  for (size_t skipped = 0; skipped < length;) {
    in.read(chunk, static_cast<std::streamsize>(std::min(kChunk, length - skipped)));
    if (in.gcount() <= 0) return false;
    skipped += static_cast<size_t>(in.gcount());
  }
  return true;
}

}  // namespace

std::optional<std::string> read_message(std::istream& in) {
  std::optional<size_t> length;
  std::string error;
  bool any_header = false;
  std::string line;
  while (true) {
    LineRead got = read_header_line(in, line);
    if (got == LineRead::kEnd) {
      if (!any_header) return std::nullopt;
      throw FramingError("the input ended inside a message header");
    }
    if (got == LineRead::kTooLong) {
      any_header = true;
      if (error.empty())
        error =
            "a header line longer than " + std::to_string(kMaxHeaderLine) + " bytes: \"" + line.substr(0, 40) + "...\"";
      continue;
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
  if (!error.empty()) {
    if (length) skip_body(in, *length);  // its body too: the next read starts at the next message
    throw FramingError(error);
  }
  if (!length) throw FramingError("a message header without Content-Length");
  if (*length > kMaxBody) {
    if (!skip_body(in, *length)) throw FramingError("the input ended inside a message body");
    throw FramingError("a message of " + std::to_string(*length) + " bytes, over the limit of " +
                       std::to_string(kMaxBody) + " (skipped)");
  }
  std::string body = read_body(in, *length);
  if (body.size() != *length) throw FramingError("the input ended inside a message body");
  return body;
}

bool nests_deeper_than(const std::string& json, size_t limit) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

std::string frame_message(const std::string& body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

}  // namespace qlint::server
