#include "cli/server/transport.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>

#include "cli/server/jsonrpc.h"

namespace qlint::server {

using json = nlohmann::json;

std::string json_text(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

void Transport::send(const json& message) {
  std::string framed = frame_message(json_text(message));
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t written = 0; written < framed.size();) {
    ssize_t n = write(fd_, framed.data() + written, framed.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the client is gone; `exit` or end of input will follow
    written += static_cast<size_t>(n);
  }
}

void Transport::notify(const std::string& method, json params) {
  send({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

void Transport::respond(const json& id, json result) {
  send({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

void Transport::respond_error(const json& id, int code, const std::string& message) {
  send({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
}

void Transport::request(const std::string& method, json params) {
  std::lock_guard<std::mutex> lock(id_mutex_);
  json message = {{"jsonrpc", "2.0"}, {"id", "qlint-" + std::to_string(++next_id_)}, {"method", method}};
  if (!params.is_null()) message["params"] = std::move(params);
  send(message);
}

namespace {
std::string next_progress_token() {
  static std::atomic<int> next{0};
  return "qlint-progress-" + std::to_string(++next);
}
}  // namespace

DelayedProgress::DelayedProgress(Transport& out, bool enabled, std::string title, std::string message,
                                 std::chrono::milliseconds delay)
    : out_(out), token_(next_progress_token()), title_(std::move(title)), message_(std::move(message)) {
  if (enabled) timer_ = std::thread(&DelayedProgress::begin_after, this, delay);
}

void DelayedProgress::begin_after(std::chrono::milliseconds delay) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (ended_.wait_for(lock, delay, [&] { return ending_; })) return;
  begun_ = true;
  out_.request("window/workDoneProgress/create", {{"token", token_}});
  out_.notify("$/progress",
              {{"token", token_}, {"value", {{"kind", "begin"}, {"title", title_}, {"message", message_}}}});
}

DelayedProgress::~DelayedProgress() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ending_ = true;
  }
  ended_.notify_one();
  if (timer_.joinable()) timer_.join();
  if (begun_) out_.notify("$/progress", {{"token", token_}, {"value", {{"kind", "end"}, {"message", message_}}}});
}

}  // namespace qlint::server
