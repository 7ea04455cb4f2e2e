// qlint server's protocol, without LibTorch: serve() on pipes, with a check that makes up its
// findings, driven message by message.
#include "cli/server/server.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <ext/stdio_filebuf.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

#include "cli/server/findings.h"
#include "cli/server/jsonrpc.h"

namespace qlint::server {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// A Python line with a two-byte character before the finding, so UTF-16 columns differ from
// qlint's byte columns.
const std::string kPythonLine = "    y = \xC3\xA9 == 1";

// What the made-up check reports for `good.pt`: one eq-nonzero-const on kPythonLine; `bad.pt`
// throws, as a bug would.
cli::CheckOutcome fake_check(const std::string& model, const std::string& python) {
  if (fs::path(model).filename() == "bad.pt") throw std::runtime_error("the importer fell over");
  auto ir_model = std::make_shared<ir::Model>();
  ir_model->file = model;
  ir_model->source_lines[python][3] = kPythonLine;
  Diagnostic d;
  d.rule = "eq-nonzero-const";
  d.message = "`==` compares a quantized value with 1";
  d.notes = {"scale 0.0018: 1.0 becomes 1.0007"};
  d.loc = {python, 3, 9, 3, 16};  // `é == 1`, bytes 9 to 15
  cli::CheckOutcome outcome;
  outcome.report = cli::ModelReport{model, ir_model, {d}, nullptr};
  return outcome;
}

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    workspace_ = fs::temp_directory_path() / ("qlint-server-test-" + std::to_string(getpid()));
    fs::create_directories(workspace_);
    python_ = (workspace_ / "model.py").string();
    int to_server[2], from_server[2];
    ASSERT_EQ(pipe(to_server), 0);
    ASSERT_EQ(pipe(from_server), 0);
    to_server_ = to_server[1];
    from_server_fd_ = from_server[0];
    // serve() leaves threads that may still read its input when it returns: the input stream
    // lives as long as the process.
    auto* in_buf = new __gnu_cxx::stdio_filebuf<char>(to_server[0], std::ios::in);
    auto* in = new std::istream(in_buf);
    from_buf_ = std::make_unique<__gnu_cxx::stdio_filebuf<char>>(from_server[0], std::ios::in);
    from_server_ = std::make_unique<std::istream>(from_buf_.get());
    ServerOptions options;
    options.poll_milliseconds = 20;
    options.docs_base = "https://example.org/rules/";
    options.check = [python = python_](const std::string& model, const cli::CheckOptions&) {
      return fake_check(model, python);
    };
    server_ = std::thread([this, in, options, out = from_server[1]] {
      exit_code_ = serve(*in, out, options);
      close(out);
    });
  }

  void TearDown() override {
    if (to_server_ >= 0) close(to_server_);
    if (server_.joinable()) server_.join();
    fs::remove_all(workspace_);
  }

  void send(const json& message) {
    std::string framed = frame_message(message.dump());
    ASSERT_EQ(write(to_server_, framed.data(), framed.size()), static_cast<ssize_t>(framed.size()));
  }
  void request(int id, const std::string& method, json params = json::object()) {
    send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
  }
  void notify(const std::string& method, json params = json::object()) {
    send({{"jsonrpc", "2.0"}, {"method", method}, {"params", params}});
  }
  // The next message from the server that `wanted` accepts; the others are skipped.
  template <typename Predicate>
  json next(Predicate wanted) {
    while (auto body = read_message(*from_server_)) {
      json message = json::parse(*body);
      if (wanted(message)) return message;
    }
    ADD_FAILURE() << "the server's output ended";
    return nullptr;
  }
  json response(int id) {
    return next([id](const json& m) { return m.contains("id") && m["id"] == id && !m.contains("method"); });
  }
  json published(const std::string& path) {
    return next([uri = file_uri(path)](const json& m) {
      return m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri;
    })["params"]["diagnostics"];
  }
  void initialize() {
    request(1, "initialize",
            {{"processId", nullptr}, {"rootUri", file_uri(workspace_.string())}, {"capabilities", json::object()}});
    EXPECT_TRUE(response(1)["result"]["capabilities"]["hoverProvider"].get<bool>());
    notify("initialized");
  }
  void finish() {
    close(to_server_);
    to_server_ = -1;
    server_.join();
  }

  fs::path workspace_;
  std::string python_;
  int to_server_ = -1;
  int from_server_fd_ = -1;
  std::unique_ptr<__gnu_cxx::stdio_filebuf<char>> from_buf_;
  std::unique_ptr<std::istream> from_server_;
  std::thread server_;
  int exit_code_ = -1;
};

TEST_F(ServerTest, PublishesFindingsOnThePythonSourceInUtf16) {
  std::ofstream(workspace_ / "good.pt") << "an archive";
  initialize();
  json diagnostics = published(python_);
  ASSERT_EQ(diagnostics.size(), 1u) << diagnostics;
  const json& d = diagnostics[0];
  EXPECT_EQ(d["range"], json::parse(R"({"start":{"line":2,"character":8},"end":{"line":2,"character":14}})"));
  EXPECT_EQ(d["code"], "eq-nonzero-const");
  EXPECT_EQ(d["codeDescription"]["href"], "https://example.org/rules/eq-nonzero-const.md");
  EXPECT_EQ(d["severity"], 2);
  EXPECT_EQ(d["message"], "`==` compares a quantized value with 1\nscale 0.0018: 1.0 becomes 1.0007");

  request(2, "textDocument/hover",
          {{"textDocument", {{"uri", file_uri(python_)}}}, {"position", {{"line", 2}, {"character", 14}}}});
  std::string hover = response(2)["result"]["contents"]["value"];
  EXPECT_NE(hover.find("What it finds"), std::string::npos) << hover;
  EXPECT_NE(hover.find("1.0 becomes 1.0007"), std::string::npos) << hover;
  request(3, "textDocument/hover",
          {{"textDocument", {{"uri", file_uri(python_)}}}, {"position", {{"line", 2}, {"character", 15}}}});
  EXPECT_TRUE(response(3)["result"].is_null());

  // The model goes: so do its findings.
  fs::remove(workspace_ / "good.pt");
  EXPECT_EQ(published(python_), json::array());
  request(4, "shutdown");
  EXPECT_TRUE(response(4)["result"].is_null());
  request(5, "textDocument/hover");
  EXPECT_EQ(response(5)["error"]["code"], error_code::kInvalidRequest);
  notify("exit");
  finish();
  EXPECT_EQ(exit_code_, 0);
}

TEST_F(ServerTest, ACheckThatThrowsIsAnErrorOnTheModelFile) {
  std::ofstream(workspace_ / "bad.pt") << "whatever";
  initialize();
  json diagnostics = published((workspace_ / "bad.pt").string());
  ASSERT_EQ(diagnostics.size(), 1u) << diagnostics;
  EXPECT_EQ(diagnostics[0]["severity"], 1);
  EXPECT_NE(diagnostics[0]["message"].get<std::string>().find("the importer fell over"), std::string::npos);
  notify("exit");  // without shutdown
  finish();
  EXPECT_EQ(exit_code_, 1);
}

TEST_F(ServerTest, CancelledAndEarlyRequestsAreAnsweredWithErrors) {
  request(1, "textDocument/hover");
  EXPECT_EQ(response(1)["error"]["code"], error_code::kServerNotInitialized);
  initialize();
  // A cancel that comes after the answer changes nothing.
  request(6, "textDocument/hover",
          {{"textDocument", {{"uri", file_uri(python_)}}}, {"position", {{"line", 0}, {"character", 0}}}});
  EXPECT_TRUE(response(6)["result"].is_null());
  notify("$/cancelRequest", {{"id", 6}});
  // A request still waiting when its cancel comes is answered RequestCancelled. To keep it
  // waiting, the dispatcher is kept busy: nobody reads its answers to many requests until their
  // bytes fill the pipe (64 KiB), so it blocks writing one.
  const int kBusy = 2000;
  for (int id = 100; id < 100 + kBusy; ++id) request(id, "qlint/unknown");
  request(7, "textDocument/hover",
          {{"textDocument", {{"uri", file_uri(python_)}}}, {"position", {{"line", 0}, {"character", 0}}}});
  notify("$/cancelRequest", {{"id", 7}});
  EXPECT_EQ(response(7)["error"]["code"], error_code::kRequestCancelled);
  request(8, "qlint/unknown");
  EXPECT_EQ(response(8)["error"]["code"], error_code::kMethodNotFound);
  request(9, "textDocument/hover", {{"textDocument", 42}});
  EXPECT_EQ(response(9)["error"]["code"], error_code::kInvalidParams);
  finish();  // the client went away without exit
  EXPECT_EQ(exit_code_, 1);
}

}  // namespace
}  // namespace qlint::server
