// JSON-RPC 2.0 over a byte stream with LSP's base protocol framing: a header block of
// `Name: value` lines ending in CRLF, an empty line, then a body of exactly Content-Length bytes
// (https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#baseProtocol).
// The bodies are parsed and written with nlohmann/json by the caller.
#pragma once

#include <istream>
#include <optional>
#include <stdexcept>
#include <string>

namespace qlint::server {

// A header block that is not LSP's: a line without a colon or over kMaxHeaderLine, a missing or
// non-numeric Content-Length, a body over kMaxBody, or a stream that ends inside a message. The
// reader has consumed the bad header block (and the body, when its length was given), so the
// next read starts after it.
struct FramingError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Bounds on what the client sends (docs/server.md): a header line, a body (one over it is
// skipped as it arrives, never held), and the nesting of a body's JSON, checked before it is
// parsed (nlohmann's parser and the json value's destructor recurse per level).
constexpr size_t kMaxHeaderLine = 8 * 1024;
constexpr size_t kMaxBody = size_t{64} << 20;
constexpr size_t kMaxJsonDepth = 128;

// The next message's body, or nullopt when the stream ends cleanly before a message starts.
// Throws FramingError (also for a header line or a body over its limit). Header names are case-insensitive;
// Content-Type is accepted and ignored (the body is UTF-8 JSON either way); a bare LF ends a header line as well as
// CRLF does.
std::optional<std::string> read_message(std::istream& in);

// Whether `json`'s brackets (outside strings) nest deeper than `limit`: linear, no recursion.
bool nests_deeper_than(const std::string& json, size_t limit);

// `body` with its header, ready to write.
std::string frame_message(const std::string& body);

// JSON-RPC's and LSP's error codes.
namespace error_code {
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
constexpr int kServerNotInitialized = -32002;
constexpr int kRequestCancelled = -32800;
}  // namespace error_code

}  // namespace qlint::server
