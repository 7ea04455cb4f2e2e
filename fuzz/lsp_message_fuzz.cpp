// libFuzzer target: a byte stream through the Language Server's message reader (LSP framing),
// each body through the depth pre-scan and, when it passes, nlohmann's parser, as the server
// reads its input. Inputs may be several MB (scripts/fuzz runs it with -max_len of 4 MiB).
//
// Structured mode, for what byte mutations rarely reach: an input starting with 0xFF builds one
// framed message whose body nests N levels deep (N from the next three bytes, up to 2^20: ten
// times the 100,000 levels that overflowed the stack, 8,000 times the bound the reader
// enforces; deeper only slows the run), with the rest of the input as its innermost text.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli/server/jsonrpc.h"

namespace {

std::string deep_message(const uint8_t* data, size_t size) {
  size_t depth = (static_cast<size_t>(data[1] >> 4) << 16) | (size_t{data[2]} << 8) | data[3];
  std::string inner(reinterpret_cast<const char*>(data + 4), size - 4);
  std::string body = std::string(depth, data[1] & 1 ? '{' : '[') + inner + std::string(depth, data[1] & 1 ? '}' : ']');
  return qlint::server::frame_message(body) + qlint::server::frame_message("{}");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string stream =
      size >= 4 && data[0] == 0xFF ? deep_message(data, size) : std::string(reinterpret_cast<const char*>(data), size);
  std::istringstream in(stream);
  for (int messages = 0; messages < 1000; ++messages) {
    std::optional<std::string> body;
    try {
      body = qlint::server::read_message(in);
    } catch (const qlint::server::FramingError&) {
      if (!in) break;
      continue;
    }
    if (!body) break;
    if (qlint::server::nests_deeper_than(*body, qlint::server::kMaxJsonDepth)) continue;
    nlohmann::json message = nlohmann::json::parse(*body, nullptr, false);
    if (!message.is_discarded()) (void)message.dump();
  }
  return 0;
}
