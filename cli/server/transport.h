// The server's side of the connection: framed JSON-RPC messages to the client, from any thread,
// and work-done progress ($/progress) for what takes long enough for a user to wonder.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

namespace qlint::server {

// LSP MessageType.
constexpr int kMessageError = 1;
constexpr int kMessageWarning = 2;
constexpr int kMessageLog = 4;

// The JSON text of `value`, invalid UTF-8 (a model's source text) replaced rather than thrown on.
std::string json_text(const nlohmann::json& value);

// Writes framed messages to the client; any thread may send.
class Transport {
 public:
  explicit Transport(int fd) : fd_(fd) {}

  void send(const nlohmann::json& message);
  void notify(const std::string& method, nlohmann::json params);
  void respond(const nlohmann::json& id, nlohmann::json result);
  void respond_error(const nlohmann::json& id, int code, const std::string& message);
  // A request of the server's own; its answer is not awaited (the client handles messages in
  // order, so what this one sets up holds for every later message). Null params are left out.
  void request(const std::string& method, nlohmann::json params);
  void show(int type, const std::string& text) { notify("window/showMessage", {{"type", type}, {"message", text}}); }
  void log(int type, const std::string& text) { notify("window/logMessage", {{"type", type}, {"message", text}}); }

 private:
  int fd_;
  std::mutex mutex_;
  std::mutex id_mutex_;
  int next_id_ = 0;
};

// Work-done progress for one task (a check, an export) that shows only once the task has taken
// longer than `delay`, so that quick re-checks do not flicker in the editor's status line: the
// token is created (window/workDoneProgress/create) and `begin` sent then; `end` when the task
// ends. Nothing at all when the client did not offer window.workDoneProgress.
class DelayedProgress {
 public:
  static constexpr std::chrono::milliseconds kDelay{200};

  DelayedProgress(Transport& out, bool enabled, std::string title, std::string message,
                  std::chrono::milliseconds delay = kDelay);
  ~DelayedProgress();  // the task ended
  DelayedProgress(const DelayedProgress&) = delete;
  DelayedProgress& operator=(const DelayedProgress&) = delete;

 private:
  void begin_after(std::chrono::milliseconds delay);

  Transport& out_;
  std::string token_, title_, message_;
  std::mutex mutex_;
  std::condition_variable ended_;
  bool ending_ = false, begun_ = false;
  std::thread timer_;
};

}  // namespace qlint::server
