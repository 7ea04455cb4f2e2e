#include "cli/server/server.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "cli/config.h"
#include "cli/model_files.h"
#include "cli/server/check_cache.h"
#include "cli/server/findings.h"
#include "cli/server/jsonrpc.h"
#include "cli/server/transport.h"
#include "cli/server/workspace.h"
#include "ir/fx/importer.h"
#include "ir/input_file.h"

namespace qlint::server {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// Messages from the reader to the dispatcher. A cancellation marks the request while it still
// waits here, so it is answered RequestCancelled instead of being served; one that comes later
// (the request is being served, or was answered) changes nothing, and nothing is kept of it.
class Inbox {
 public:
  struct Message {
    json body;
    bool cancelled = false;
  };

  void push(json message) {
    std::lock_guard<std::mutex> lock(mutex_);
    messages_.push_back({std::move(message), false});
    ready_.notify_one();
  }
  void close() {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    ready_.notify_one();
  }
  void cancel(const json& id) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& m : messages_)
      if (m.body.contains("id") && m.body["id"] == id && m.body.contains("method")) m.cancelled = true;
  }
  // The next message, or nullopt once the input has ended and everything was taken.
  std::optional<Message> pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return !messages_.empty() || closed_; });
    if (messages_.empty()) return std::nullopt;
    Message message = std::move(messages_.front());
    messages_.pop_front();
    return message;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Message> messages_;
  bool closed_ = false;
};

// Models waiting for a check, each at most once: a change to a model already waiting only
// bumps its generation, and a check whose model changed while it ran is not published (the
// newer one is already waiting).
class CheckQueue {
 public:
  void push(const std::string& model) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++generation_[model];
    if (waiting_.insert(model).second) order_.push_back(model);
    ready_.notify_one();
  }
  std::optional<std::pair<std::string, uint64_t>> pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return !order_.empty() || stopped_; });
    if (stopped_) return std::nullopt;
    std::string model = order_.front();
    order_.pop_front();
    waiting_.erase(model);
    return std::make_pair(model, generation_[model]);
  }
  bool empty() {
    std::lock_guard<std::mutex> lock(mutex_);
    return order_.empty();
  }
  bool current(const std::string& model, uint64_t generation) {
    std::lock_guard<std::mutex> lock(mutex_);
    return generation_[model] == generation && !stopped_;
  }
  void stop() {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
    order_.clear();
    waiting_.clear();
    ready_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::string> order_;
  std::set<std::string> waiting_;
  std::map<std::string, uint64_t> generation_;
  bool stopped_ = false;
};

// A wake-up signal with a flag, for the poller and the exporter.
class Signal {
 public:
  // Waits until raised or `timeout` passes; returns whether it was raised, and lowers it.
  bool wait(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait_for(lock, timeout, [&] { return raised_; });
    bool was = raised_;
    raised_ = false;
    return was;
  }
  void raise() {
    std::lock_guard<std::mutex> lock(mutex_);
    raised_ = true;
    ready_.notify_one();
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  bool raised_ = false;
};

bool is_python_file(const std::string& path) { return fs::path(path).extension() == ".py"; }

// The last `count` non-empty lines of a command's output, where its error usually is.
std::string last_lines(const std::string& text, size_t count) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = std::min(text.find('\n', start), text.size());
    if (end > start) lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  std::string out;
  for (size_t i = lines.size() > count ? lines.size() - count : 0; i < lines.size(); ++i)
    out += (out.empty() ? "" : "\n") + lines[i];
  return out;
}

class Server {
 public:
  Server(int out_fd, ServerOptions options) : out_(out_fd), options_(std::move(options)) {
    finding_options_.docs_base = options_.docs_base;
    trusted_ = options_.trusted;
  }

  // Reads messages on a thread of its own (which may stay blocked in a read when `exit` comes)
  // and serves them on this one, until `exit` or the end of the input.
  int run(std::istream& in) {
    std::thread([this, &in] {
      read_loop(in);
      inbox_.close();
    }).detach();
    dispatch_loop();
    std::lock_guard<std::mutex> lock(exit_mutex_);
    return *exit_code_;
  }

  // ---- the message loop ----

  void read_loop(std::istream& in) {
    while (true) {
      std::optional<std::string> body;
      try {
        body = read_message(in);
      } catch (const FramingError& e) {
        std::cerr << "qlint server: skipping a malformed message: " << e.what() << "\n";
        if (!in) return;
        continue;
      }
      if (!body) return;
      if (nests_deeper_than(*body, kMaxJsonDepth)) {
        out_.respond_error(nullptr, error_code::kParseError,
                           "the message nests deeper than " + std::to_string(kMaxJsonDepth) + " levels");
        continue;
      }
      json message = json::parse(*body, nullptr, false);
      if (message.is_discarded()) {
        out_.respond_error(nullptr, error_code::kParseError, "the message is not valid JSON");
        continue;
      }
      if (std::string why = invalid_request(message); !why.empty()) {
        out_.respond_error(request_id(message), error_code::kInvalidRequest, why);
        continue;
      }
      if (method_of(message) == "$/cancelRequest") {
        if (message.contains("params") && message["params"].contains("id")) inbox_.cancel(message["params"]["id"]);
        continue;
      }
      inbox_.push(std::move(message));
    }
  }

  void dispatch_loop() {
    while (std::optional<Inbox::Message> next = inbox_.pop()) {
      const json& message = next->body;
      const std::string method = method_of(message);
      if (method.empty()) continue;  // a response to one of our requests, or no message at all
      if (method == "exit") return finish(shutdown_ ? 0 : 1);
      const json params = message.contains("params") ? message["params"] : json::object();
      if (!message.contains("id")) {
        guarded(method, [&] { notification(method, params); });
        continue;
      }
      const json& id = message["id"];
      if (next->cancelled) {
        out_.respond_error(id, error_code::kRequestCancelled, "cancelled");
        continue;
      }
      guarded(
          method, [&] { request(id, method, params); }, &id);
    }
    finish(shutdown_ ? 0 : 1);  // the client closed our input without `exit`
  }

  // Why a parsed message is no JSON-RPC request, notification or response, or "".
  static std::string invalid_request(const json& message) {
    if (!message.is_object()) return "the message is not a JSON object (batches are not supported)";
    auto method = message.find("method");
    if (method == message.end()) {
      if (message.contains("result") || message.contains("error")) return "";  // a response to one of ours
      return "the message has no `method`";
    }
    if (!method->is_string()) return "`method` must be a string";
    return "";
  }

  // The id to answer an invalid request with: its own when it is one JSON-RPC allows, else null.
  static json request_id(const json& message) {
    if (!message.is_object() || !message.contains("id")) return nullptr;
    const json& id = message["id"];
    return id.is_string() || id.is_number_integer() ? id : json(nullptr);
  }

  static std::string method_of(const json& message) {
    auto method = message.find("method");
    return method != message.end() && method->is_string() ? method->get<std::string>() : "";
  }

  // Whatever a handler throws (a malformed parameter, a bug) is answered or logged; the server
  // goes on.
  template <typename Handler>
  void guarded(const std::string& method, Handler handler, const json* id = nullptr) {
    try {
      handler();
    } catch (const json::exception& e) {
      if (id) out_.respond_error(*id, error_code::kInvalidParams, method + ": " + e.what());
    } catch (const std::exception& e) {
      if (id)
        out_.respond_error(*id, error_code::kInternalError, method + ": " + e.what());
      else
        out_.log(kMessageError, "qlint: " + method + ": " + e.what());
    }
  }

  void finish(int code) {
    queue_.stop();
    runner_.kill_running();
    std::lock_guard<std::mutex> lock(exit_mutex_);
    exit_code_ = code;
  }

  void request(const json& id, const std::string& method, const json& params) {
    if (method == "initialize") return out_.respond(id, initialize(params));
    if (!initialized_) return out_.respond_error(id, error_code::kServerNotInitialized, "initialize first");
    if (shutdown_) return out_.respond_error(id, error_code::kInvalidRequest, "the server is shutting down");
    if (method == "shutdown") {
      shutdown_ = true;
      queue_.stop();
      return out_.respond(id, nullptr);
    }
    if (method == "textDocument/codeAction") return out_.respond(id, code_action(params));
    if (method == "textDocument/hover") return out_.respond(id, hover_at(params));
    if (method == "textDocument/diagnostic") return out_.respond(id, document_diagnostics(params));
    if (method == "workspace/diagnostic") return out_.respond(id, workspace_diagnostics(params));
    out_.respond_error(id, error_code::kMethodNotFound, "qlint server does not handle " + method);
  }

  void notification(const std::string& method, const json& params) {
    if (!initialized_ || shutdown_) return;
    if (method == "initialized") return start();
    if (method == "textDocument/didSave") return saved(params.at("textDocument").at("uri").get<std::string>());
    if (method == "workspace/didChangeWatchedFiles") return files_changed(params.at("changes"));
    if (method == "workspace/didChangeWorkspaceFolders") return folders_changed(params.at("event"));
    if (method == "workspace/didChangeConfiguration") return reconfigure();
  }

  // ---- initialize ----

  json initialize(const json& params) {
    if (initialized_) throw std::invalid_argument("initialize was already called");
    folders_ = workspace_folders(params);
    // The folders the user opened hold their Python sources: findings show them and fixes edit
    // them, wherever the server was started (checks start after initialize, on the worker).
    for (const auto& folder : folders_) ir::limits().source_roots.push_back(folder);
    if (!folders_.empty()) finding_options_.root = folders_.front();
    const json init = params.value("initializationOptions", json::object());
    if (init.is_object() && init.contains("trusted") && init["trusted"] == true) trusted_ = true;
    // An untrusted workspace's archives are read but never run: loading one whose classes
    // define __setstate__ would run it (docs/reliability.md), so such an archive is refused.
    if (!trusted_) {
      ir::limits().no_exec = true;
      ir::limits().no_exec_reason =
          "the workspace is not trusted (start `qlint server --trusted`, or pass {\"trusted\": true} as "
          "initializationOptions)";
    }
    const json client = params.value("capabilities", json::object());
    watch_registration_ = client_offers(client, {"workspace", "didChangeWatchedFiles", "dynamicRegistration"});
    progress_ = client_offers(client, {"window", "workDoneProgress"});
    // Creating a file takes a WorkspaceEdit's documentChanges and the `create` operation.
    if (const json* operations = capability(client, {"workspace", "workspaceEdit", "resourceOperations"}))
      create_files_ = client_offers(client, {"workspace", "workspaceEdit", "documentChanges"}) &&
                      operations->is_array() &&
                      std::find(operations->begin(), operations->end(), "create") != operations->end();
    // Pull diagnostics only for a client that also lets the server say when to pull again: the
    // findings change when a model does, not when the client edits a document.
    pull_ = capability(client, {"textDocument", "diagnostic"}) != nullptr &&
            client_offers(client, {"workspace", "diagnostics", "refreshSupport"});
    initialized_ = true;
    json capabilities = {
        {"positionEncoding", "utf-16"},
        {"textDocumentSync", {{"openClose", true}, {"change", 0}, {"save", {{"includeText", false}}}}},
        {"codeActionProvider", {{"codeActionKinds", {"quickfix", "quickfix.unsafe", "source.fixAll.qlint"}}}},
        {"hoverProvider", true},
        {"workspace", {{"workspaceFolders", {{"supported", true}, {"changeNotifications", true}}}}}};
    if (pull_)
      capabilities["diagnosticProvider"] = {
          {"identifier", "qlint"}, {"interFileDependencies", true}, {"workspaceDiagnostics", true}};
    return {{"capabilities", capabilities}, {"serverInfo", {{"name", "qlint"}, {"version", QLINT_VERSION}}}};
  }

  // The client capability at `path` (e.g. textDocument.diagnostic), or null; as tolerant of
  // what is missing as LSP asks.
  static const json* capability(const json& capabilities, std::initializer_list<const char*> path) {
    const json* node = &capabilities;
    for (const char* key : path) {
      if (!node->is_object() || !node->contains(key)) return nullptr;
      node = &(*node)[key];
    }
    return node;
  }
  // Whether the client capability at `path` is `true`.
  static bool client_offers(const json& capabilities, std::initializer_list<const char*> path) {
    const json* node = capability(capabilities, path);
    return node != nullptr && node->is_boolean() && node->get<bool>();
  }

  static std::vector<std::string> workspace_folders(const json& params) {
    std::vector<std::string> folders;
    if (params.contains("workspaceFolders") && params["workspaceFolders"].is_array())
      for (const auto& folder : params["workspaceFolders"])
        if (auto path = path_of_uri(folder.value("uri", ""))) folders.push_back(*path);
    if (folders.empty() && params.contains("rootUri") && params["rootUri"].is_string())
      if (auto path = path_of_uri(params["rootUri"].get<std::string>())) folders.push_back(*path);
    if (folders.empty() && params.contains("rootPath") && params["rootPath"].is_string())
      folders.push_back(params["rootPath"].get<std::string>());
    if (folders.empty()) folders.push_back(fs::current_path().string());
    return folders;
  }

  // What to watch in each folder: the models its configuration names, or the whole folder. Only
  // a configuration inside the folder counts, and only the models it names inside the folder: a
  // repository cannot make the server read (or rescan) anything outside the workspace.
  // What is watched, computed and set as one step: the dispatcher and the poller both do this.
  void refresh_roots() {
    std::lock_guard<std::mutex> lock(roots_mutex_);
    watcher_.set_roots(watch_roots());
  }

  // Call under roots_mutex_.
  std::vector<std::string> watch_roots() {
    std::vector<std::string> roots;
    for (const auto& folder : folders()) {
      std::optional<cli::Config> config;
      try {
        config = cli::find_config(folder, {folder});
      } catch (const cli::ConfigError& e) {
        out_.show(kMessageError, std::string("qlint: ") + e.what());
      }
      std::vector<std::string> models;
      if (config)
        for (const auto& model : config->models) {
          if (cli::is_within(model, folder))
            models.push_back(model);
          else if (outside_warned_.insert(model).second)
            out_.show(kMessageWarning, "qlint: " + config->file + ": not watching `" + model +
                                           "` (in `models`): it is outside the workspace " + folder);
        }
      if (!models.empty())
        roots.insert(roots.end(), models.begin(), models.end());
      else
        roots.push_back(folder);
    }
    return roots;
  }

  void start() {
    if (started_.exchange(true)) return;  // a second `initialized`
    if (!trusted_)
      out_.log(kMessageWarning,
               "qlint: the workspace is not trusted: archives whose loading would run their own code (a class "
               "defining __setstate__) are not loaded, the export command is not run and models are not simulated");
    refresh_roots();
    if (watch_registration_) {
      json watchers = json::array();
      for (const char* glob : {"**/*.pt", "**/*.pth", "**/*.ptl", "**/*.jit", "**/*.torchscript", "**/*.fx.json",
                               "**/.qlint.toml", "**/pyproject.toml"})
        watchers.push_back({{"globPattern", glob}});
      out_.request("client/registerCapability", {{"registrations",
                                                  {{{"id", "qlint-models"},
                                                    {"method", "workspace/didChangeWatchedFiles"},
                                                    {"registerOptions", {{"watchers", watchers}}}}}}});
    }
    std::thread(&Server::check_loop, this).detach();
    std::thread(&Server::poll_loop, this).detach();
    std::thread(&Server::export_loop, this).detach();
  }

  // ---- requests on findings ----

  json code_action(const json& params) {
    auto path = path_of_uri(params.at("textDocument").at("uri").get<std::string>());
    if (!path) return json::array();
    Range range = Range::from_json(params.at("range"));
    std::vector<std::string> only;
    if (params.contains("context") && params["context"].contains("only"))
      only = params["context"]["only"].get<std::vector<std::string>>();
    std::lock_guard<std::mutex> lock(state_mutex_);
    const std::vector<const Finding*> on_file = findings_on(*path);
    json actions = code_actions(on_file, range);
    // Made now, from the configuration's current text: an edit made at check time would go stale
    // as soon as another one is applied.
    std::set<std::string> rules_offered;
    for (const Finding* f : on_file) {
      if (!f->range.intersects(range) || f->rule.empty() || !rules_offered.insert(f->rule).second) continue;
      const auto [config_file, new_config] = config_target(f->model);
      if (json ignore = ignore_in_file_action(*f, config_file, new_config); !ignore.is_null())
        actions.push_back(std::move(ignore));
    }
    if (json all = fix_all_action(on_file); !all.is_null()) actions.push_back(std::move(all));
    if (only.empty()) return actions;
    json wanted = json::array();
    for (const auto& action : actions) {
      const std::string kind = action.value("kind", "");
      for (const auto& prefix : only)
        if (kind == prefix || kind.rfind(prefix + ".", 0) == 0) {
          wanted.push_back(action);
          break;
        }
    }
    return wanted;
  }

  json hover_at(const json& params) {
    auto path = path_of_uri(params.at("textDocument").at("uri").get<std::string>());
    if (!path) return nullptr;
    Range at;
    at.start_line = at.end_line = params.at("position").at("line").get<int>();
    at.start_character = at.end_character = params.at("position").at("character").get<int>();
    std::lock_guard<std::mutex> lock(state_mutex_);
    return hover(findings_on(*path), at);
  }

  // The findings every model has on `path`, each once: a Python file that two models map to (an
  // archive and its FX export) shows a finding both report once. Call under state_mutex_.
  std::vector<const Finding*> findings_on(const std::string& path) const {
    std::vector<const Finding*> out;
    std::set<std::string> shown;
    for (const auto& [model, findings] : by_model_)
      for (const Finding& f : findings) {
        if (f.path != path) continue;
        std::string key =
            json_text(f.range.to_json()) + json_text(f.diagnostic["code"]) + json_text(f.diagnostic["message"]);
        if (shown.insert(key).second) out.push_back(&f);
      }
    return out;
  }

  // ---- checking ----

  void files_changed(const json& changes) {
    for (const auto& change : changes) {
      auto path = path_of_uri(change.at("uri").get<std::string>());
      if (path && cli::is_config_file(*path)) {
        reconfigure();
        continue;
      }
      // The client watches every model-like file; the configuration's `models` may say less.
      if (!path || !cli::is_model_file(*path) || !watcher_.watches(*path)) continue;
      watcher_.mark_checked(*path);
      queue_.push(*path);
    }
  }

  void folders_changed(const json& event) {
    std::unique_lock<std::mutex> lock(folders_mutex_);
    for (const auto& removed : event.value("removed", json::array()))
      if (auto path = path_of_uri(removed.value("uri", "")))
        folders_.erase(std::remove(folders_.begin(), folders_.end(), *path), folders_.end());
    for (const auto& added : event.value("added", json::array()))
      if (auto path = path_of_uri(added.value("uri", ""))) folders_.push_back(*path);
    lock.unlock();
    reconfigure();  // a folder's configuration may now apply, or no longer
  }

  // The configuration changed (a file, or the client's settings): what is watched may change,
  // and so may every model's findings.
  void reconfigure() {
    cache_.clear();
    refresh_roots();
    for (const auto& model : watcher_.models()) queue_.push(model);
    poll_now_.raise();
  }

  // Every configuration file a watched model (or a folder's `models` key) reads.
  std::vector<std::string> configuration_files() {
    std::set<std::string> files;
    const std::vector<std::string> folders = this->folders();
    std::set<std::string> directories(folders.begin(), folders.end());
    for (const auto& model : watcher_.models()) directories.insert(fs::path(model).parent_path().string());
    for (const auto& directory : directories)
      for (auto& file : cli::config_candidates(directory, folders)) files.insert(std::move(file));
    return {files.begin(), files.end()};
  }

  cli::CheckOptions check_options(const std::string& model) {
    cli::CheckOptions options = options_.command_line;
    options.files = {model};
    options.jobs = 1;
    options.config_roots = folders();
    if (!trusted_ || !cli::is_runnable_model(model)) return options;
    try {
      // Simulating runs the model: only in a trusted workspace, on its configured inputs.
      if (auto config = cli::find_config(model, options.config_roots)) options.inputs.files = config->inputs;
    } catch (const cli::ConfigError&) {
      // check_model reports the broken configuration on the model
    }
    return options;
  }

  void check_loop() {
    auto last_refresh = std::chrono::steady_clock::now();
    while (auto next = queue_.pop()) {
      const auto& [model, generation] = *next;
      std::vector<Finding> findings;
      try {
        findings = check(model);
      } catch (const std::exception& e) {  // never the worker's end: the model gets one error
        findings = {load_failure(model, model + ": internal error: " + e.what())};
      }
      if (queue_.current(model, generation)) publish(model, std::move(findings));
      // A pulling client is told to pull again once a burst of checks is over (or every second
      // while one goes on): one refresh, not one per model.
      if (pull_ && refresh_due_ &&
          (queue_.empty() || std::chrono::steady_clock::now() - last_refresh > std::chrono::seconds(1))) {
        refresh_due_ = false;
        last_refresh = std::chrono::steady_clock::now();
        out_.request("workspace/diagnostic/refresh", nullptr);
      }
    }
  }

  // The findings of `model`: those of its last check when nothing they depend on changed
  // (CheckCache: no load), else a new check's.
  std::vector<Finding> check(const std::string& model) {
    std::error_code ec;
    // Removed, or out of the workspace (its folder was removed from it): its findings go.
    if (!fs::exists(model, ec) || !watcher_.watches(model)) return {};
    const std::optional<uint64_t> digest = file_digest(model);
    if (digest)
      if (auto findings = cache_.unchanged(model, *digest)) {
        out_.log(kMessageLog, "qlint: " + model + " is unchanged since its last check");
        return std::move(*findings);
      }
    const CheckCache::Ticket ticket = cache_.ticket();
    const cli::CheckOptions options = check_options(model);
    std::vector<std::string> files_read = options.inputs.files;
    bool failed = false;
    std::vector<Finding> findings = check_anew(model, options, files_read, failed);
    if (digest && !failed) cache_.store(model, *digest, ticket, findings, files_read);
    return findings;
  }

  // A new check of `model`; adds the source files it read to `files_read`, says whether it failed.
  std::vector<Finding> check_anew(const std::string& model, const cli::CheckOptions& options,
                                  std::vector<std::string>& files_read, bool& failed) {
    auto started = std::chrono::steady_clock::now();
    cli::CheckOutcome outcome;
    try {
      DelayedProgress progress(out_, progress_, "qlint",
                               (options.inputs.files.empty() ? "checking " : "checking and simulating ") +
                                   fs::path(model).filename().string());
      outcome = options_.check(model, options);
    } catch (const std::exception& e) {
      outcome.error = cli::InputError{model, model + ": internal error: " + e.what()};
    } catch (...) {
      outcome.error = cli::InputError{model, model + ": internal error: an unknown exception"};
    }
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    out_.log(kMessageLog, "qlint: checked " + model + " in " + std::to_string(ms.count()) + " ms");
    failed = outcome.error.has_value();
    if (failed) return {load_failure(model, outcome.error->message)};
    for (const auto& [file, lines] : outcome.report->model->source_lines) files_read.push_back(file);
    FindingOptions shown;
    {
      std::lock_guard<std::mutex> lock(state_mutex_);
      shown = finding_options_;
    }
    return findings_of(*outcome.report, shown);
  }

  // Replaces a model's findings and publishes every file they were or are on, the model file
  // always (so a client sees each check end, and a load error go).
  void publish(const std::string& model, std::vector<Finding> findings) {
    std::lock_guard<std::mutex> lock(state_mutex_);
    std::set<std::string> paths = {model};
    for (const auto& f : by_model_[model]) paths.insert(f.path);
    for (const auto& f : findings) paths.insert(f.path);
    if (findings.empty())
      by_model_.erase(model);
    else
      by_model_[model] = std::move(findings);
    reported_paths_.insert(paths.begin(), paths.end());
    if (pull_) {
      refresh_due_ = true;  // the client pulls what changed (check_loop says when)
      return;
    }
    for (const auto& path : paths)
      out_.notify("textDocument/publishDiagnostics", {{"uri", file_uri(path)}, {"diagnostics", diagnostics_on(path)}});
  }

  // The diagnostics of every model on `path`. Call under state_mutex_.
  json diagnostics_on(const std::string& path) const {
    json diagnostics = json::array();
    for (const Finding* f : findings_on(path)) diagnostics.push_back(f->diagnostic);
    return diagnostics;
  }

  // Which configuration "ignore in this file" edits: the one `model`'s check reads, else a new
  // .qlint.toml in the model's workspace folder when the client can create files. {"", ""} for none.
  std::pair<std::string, std::string> config_target(const std::string& model) {
    const std::vector<std::string> folders = this->folders();
    try {
      if (auto config = cli::find_config(model, folders)) return {config->file, ""};
    } catch (const cli::ConfigError&) {
      return {};  // a configuration qlint cannot read: nothing to add to
    }
    if (!create_files_) return {};
    for (const auto& folder : folders)
      if (cli::is_within(model, folder)) return {"", (fs::path(folder) / ".qlint.toml").string()};
    return {};
  }

  // ---- pull diagnostics ----

  // A full report of `path`'s diagnostics, or "unchanged" when the client has them already: the
  // result id is a digest of the diagnostics themselves. Call under state_mutex_.
  json document_report(const std::string& path, const std::string& previous_result_id) const {
    json items = diagnostics_on(path);
    const std::string result_id = std::to_string(std::hash<std::string>{}(json_text(items)));
    if (result_id == previous_result_id) return {{"kind", "unchanged"}, {"resultId", result_id}};
    return {{"kind", "full"}, {"resultId", result_id}, {"items", std::move(items)}};
  }

  json document_diagnostics(const json& params) {
    auto path = path_of_uri(params.at("textDocument").at("uri").get<std::string>());
    const std::string previous = params.value("previousResultId", "");
    std::lock_guard<std::mutex> lock(state_mutex_);
    if (!path) return {{"kind", "full"}, {"items", json::array()}};
    return document_report(*path, previous);
  }

  // Every file a check ever reported on (so that the client also learns of findings gone).
  json workspace_diagnostics(const json& params) {
    std::map<std::string, std::string> previous;  // uri -> result id
    for (const auto& entry : params.value("previousResultIds", json::array()))
      previous[entry.at("uri").get<std::string>()] = entry.at("value").get<std::string>();
    json items = json::array();
    std::lock_guard<std::mutex> lock(state_mutex_);
    for (const auto& path : reported_paths_) {
      const std::string uri = file_uri(path);
      json report = document_report(path, previous.count(uri) ? previous[uri] : "");
      report["uri"] = uri;
      report["version"] = nullptr;  // reports are of the files on disk, not of an editor's buffer
      items.push_back(std::move(report));
    }
    return {{"items", std::move(items)}};
  }

  void poll_loop() {
    const auto interval = std::chrono::milliseconds(std::max(options_.poll_milliseconds, 10));
    while (!stopped()) {
      if (!exporting_) {
        ModelWatcher::Changes changes = watcher_.scan();
        for (const auto& model : changes.changed) queue_.push(model);
        for (const auto& model : changes.removed) queue_.push(model);
        if (configs_.changed(configuration_files())) reconfigure();
      }
      poll_now_.wait(interval);
    }
  }

  bool stopped() {
    std::lock_guard<std::mutex> lock(exit_mutex_);
    return exit_code_.has_value() || shutdown_;
  }

  // ---- export on save ----

  void saved(const std::string& uri) {
    auto path = path_of_uri(uri);
    if (!path || !is_python_file(*path)) return;
    {
      std::lock_guard<std::mutex> lock(export_mutex_);
      saved_python_ = *path;
    }
    export_now_.raise();
  }

  // The newest save wins: saves during an export make one more export after it.
  void export_loop() {
    while (!stopped()) {
      if (!export_now_.wait(std::chrono::milliseconds(500))) continue;
      std::string python;
      {
        std::lock_guard<std::mutex> lock(export_mutex_);
        python.swap(saved_python_);
      }
      if (!python.empty()) run_export(python);
    }
  }

  void run_export(const std::string& python) {
    std::optional<cli::Config> config;
    try {
      config = cli::find_config(python, folders());  // never a configuration outside the workspace
    } catch (const cli::ConfigError& e) {
      out_.show(kMessageError, std::string("qlint: ") + e.what());
      return;
    }
    if (!config || !config->export_command) return;
    if (!trusted_) {
      if (untrusted_warned_.insert(config->file).second)
        out_.show(kMessageWarning, "qlint: not running the export command of " + config->file +
                                       ": the workspace is not trusted (start `qlint server --trusted`, or pass "
                                       "{\"trusted\": true} as initializationOptions)");
      return;
    }
    const std::string directory = fs::path(config->file).parent_path().string();
    out_.log(kMessageLog, "qlint: running `" + *config->export_command + "` in " + directory);
    exporting_ = true;
    CommandResult result;
    {
      DelayedProgress progress(out_, progress_, "qlint", "exporting: " + *config->export_command);
      result = runner_.run(*config->export_command, directory);
    }
    exporting_ = false;
    if (result.exit_code != 0) {
      out_.log(kMessageError, "qlint: the export command failed:\n" + result.output);
      out_.show(kMessageError, "qlint: `" + *config->export_command + "` failed (exit " +
                                   std::to_string(result.exit_code) + "): " + last_lines(result.output, 3));
    }
    // The exporter has finished writing: whatever changed is complete, check it now.
    watcher_.settle();
    poll_now_.raise();
  }

  Transport out_;
  ServerOptions options_;
  Inbox inbox_;
  CheckQueue queue_;
  CheckCache cache_;
  ModelWatcher watcher_;
  CommandRunner runner_;
  Signal poll_now_, export_now_;

  // The workspace folders: changed by the dispatcher, read by the worker and the exporter.
  std::vector<std::string> folders() {
    std::lock_guard<std::mutex> lock(folders_mutex_);
    return folders_;
  }
  std::mutex folders_mutex_;
  std::vector<std::string> folders_;
  // Touched by the dispatcher only, before the other threads start, or read as flags.
  std::atomic<bool> initialized_{false}, started_{false}, shutdown_{false}, trusted_{false}, exporting_{false};
  bool watch_registration_ = false;
  bool progress_ = false;  // the client shows $/progress
  bool create_files_ = false;
  std::atomic<bool> refresh_due_{
      false};  // a pulling client has not been told of a check yet  // the client's workspace edits can create files
  bool pull_ = false;  // the client pulls diagnostics (textDocument/diagnostic), told when to again

  std::mutex state_mutex_;
  FindingOptions finding_options_;
  std::map<std::string, std::vector<Finding>> by_model_;
  std::set<std::string> reported_paths_;  // every file a check reported on, for workspace pulls

  std::mutex export_mutex_;
  std::string saved_python_;
  std::set<std::string> untrusted_warned_;  // export thread only
  std::mutex roots_mutex_;
  std::set<std::string> outside_warned_;  // `models` entries outside the workspace, shown once
  ConfigWatcher configs_;                 // poller only

  std::mutex exit_mutex_;
  std::optional<int> exit_code_;
};

}  // namespace

int serve(std::istream& in, int out_fd, const ServerOptions& options) {
  // Detached threads may still use the server when this returns; the process ends right after.
  auto* server = new Server(out_fd, options);
  return server->run(in);
}

void serve_stdio(const ServerOptions& options) {
  std::fflush(stdout);
  int protocol_fd = dup(STDOUT_FILENO);
  dup2(STDERR_FILENO, STDOUT_FILENO);
  std::ios::sync_with_stdio(false);
  int code = serve(std::cin, protocol_fd, options);
  // Threads may still be reading stdin or checking a model; static destructors must not run
  // under them.
  std::fflush(nullptr);
  std::_Exit(code);
}

std::string default_docs_base() {
  // A stable address of the pages: the environment's (a team's mirror), else the one qlint was
  // built with (a distributor's).
  const char* from_environment = std::getenv("QLINT_DOCS_URL");
  if (std::string published = from_environment && *from_environment ? from_environment : QLINT_DOCS_URL;
      !published.empty())
    return published.back() == '/' ? published : published + "/";
  std::error_code ec;
  fs::path binary_dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
  for (const fs::path& candidate :
       {binary_dir / ".." / "docs" / "rules", binary_dir / ".." / "share" / "doc" / "qlint" / "rules"}) {
    if (fs::is_directory(candidate, ec)) return file_uri(fs::weakly_canonical(candidate, ec).string()) + "/";
  }
  return "";
}

}  // namespace qlint::server
