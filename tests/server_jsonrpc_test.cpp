// The Language Server's framing (LSP base protocol) and URI handling, without a server.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/server/check_cache.h"
#include "cli/server/findings.h"
#include "cli/server/jsonrpc.h"
#include "cli/server/workspace.h"

namespace qlint::server {
namespace {

TEST(JsonRpcFraming, ReadsMessagesBackToBack) {
  std::istringstream in(frame_message(R"({"a":1})") + frame_message(R"({"b":"é"})"));
  EXPECT_EQ(read_message(in), R"({"a":1})");
  EXPECT_EQ(read_message(in), R"({"b":"é"})");  // the length counts bytes, not characters
  EXPECT_EQ(read_message(in), std::nullopt);
}

TEST(JsonRpcFraming, AcceptsContentTypeAnyCaseAndBareLineFeeds) {
  std::istringstream in(
      "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length:  2\r\n\r\n{}"
      "Content-Length: 4\n\n[1,2]");
  EXPECT_EQ(read_message(in), "{}");
  EXPECT_EQ(read_message(in), "[1,2");  // exactly Content-Length bytes, whatever follows
}

TEST(JsonRpcFraming, EndOfInputBeforeAMessageIsNoError) {
  std::istringstream empty("");
  EXPECT_EQ(read_message(empty), std::nullopt);
  std::istringstream blank("\r\n\r\n");
  EXPECT_EQ(read_message(blank), std::nullopt);
}

TEST(JsonRpcFraming, RejectsBadHeaders) {
  for (const char* bad : {"Content-Length: -3\r\n\r\n", "Content-Length: 12abc\r\n\r\n", "Content-Length:\r\n\r\n",
                          "Content-Length: 99999999999999\r\n\r\n", "Content-Type: text/plain\r\n\r\n",
                          "this is no header\r\nContent-Length: 2\r\n\r\n{}"}) {
    std::istringstream in(bad);
    EXPECT_THROW(read_message(in), FramingError) << bad;
  }
}

TEST(JsonRpcFraming, ATruncatedMessageIsAnError) {
  std::istringstream in_body("Content-Length: 10\r\n\r\n{\"a\":");
  EXPECT_THROW(read_message(in_body), FramingError);
  std::istringstream in_header("Content-Length: 10\r\n");
  EXPECT_THROW(read_message(in_header), FramingError);
}

TEST(JsonRpcFraming, ReadsOnAfterABadHeaderBlock) {
  std::istringstream in("garbage\r\n\r\n" + frame_message("{}"));
  EXPECT_THROW(read_message(in), FramingError);
  EXPECT_EQ(read_message(in), "{}");
}

TEST(JsonRpcFraming, ALongHeaderLineIsRefusedInBoundedMemory) {
  std::istringstream in("X-Pad: " + std::string(10 * kMaxHeaderLine, 'a') + "\r\nContent-Length: 2\r\n\r\n{}" +
                        frame_message("[]"));
  try {
    read_message(in);
    ADD_FAILURE() << "a long header line was accepted";
  } catch (const FramingError& e) {
    EXPECT_NE(std::string(e.what()).find("header line longer than"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_message(in), "[]");  // the next message is read as usual
}

TEST(JsonRpcFraming, ABodyOverTheMaximumIsSkippedNotHeld) {
  // Declared and sent: skipped as it arrives, and the stream stays in step.
  std::string big(kMaxBody + 1, ' ');
  std::istringstream in("Content-Length: " + std::to_string(big.size()) + "\r\n\r\n" + big + frame_message("{}"));
  EXPECT_THROW(read_message(in), FramingError);
  EXPECT_EQ(read_message(in), "{}");
  // Declared, never sent: an error when the input ends, after no allocation of its size.
  std::istringstream declared("Content-Length: 1073741824\r\n\r\n{}");
  EXPECT_THROW(read_message(declared), FramingError);
}

TEST(JsonRpcNesting, CountsBracketsOutsideStrings) {
  EXPECT_FALSE(nests_deeper_than(R"({"a":[{"b":[1]}]})", 4));
  EXPECT_TRUE(nests_deeper_than(R"({"a":[{"b":[1]}]})", 3));
  EXPECT_FALSE(nests_deeper_than(R"({"a":"[[[[[[\"[[[["})", 1));  // brackets inside a string, an escaped quote
  EXPECT_TRUE(nests_deeper_than(std::string(100000, '[') + std::string(100000, ']'), kMaxJsonDepth));
}

TEST(ServerUris, FileUrisRoundTrip) {
  for (const std::string path : {"/work/a.py", "/tmp/my models #1/模型 100%.py"}) {
    std::string uri = file_uri(path);
    EXPECT_EQ(uri.rfind("file:///", 0), 0u) << uri;
    EXPECT_EQ(path_of_uri(uri), path);
  }
  EXPECT_EQ(file_uri("/tmp/a b.py"), "file:///tmp/a%20b.py");
  // As VS Code writes them, and other hosts' files, which are not ours.
  EXPECT_EQ(path_of_uri("file:///tmp/a%20b/x.py"), "/tmp/a b/x.py");
  EXPECT_EQ(path_of_uri("file://localhost/tmp/x.py"), "/tmp/x.py");
  EXPECT_EQ(path_of_uri("file://server/share/x.py"), std::nullopt);
  EXPECT_EQ(path_of_uri("untitled:Untitled-1"), std::nullopt);
}

TEST(ServerRanges, ACursorAtEitherEndTouchesTheRange) {
  Range finding{15, 15, 15, 34};
  EXPECT_TRUE(finding.intersects({15, 15, 15, 15}));
  EXPECT_TRUE(finding.intersects({15, 34, 15, 34}));
  EXPECT_TRUE(finding.intersects({0, 0, 20, 0}));
  EXPECT_FALSE(finding.intersects({15, 35, 15, 40}));
  EXPECT_FALSE(finding.intersects({14, 0, 14, 80}));
}

TEST(ServerWatcher, WatchesWhatIsUnderItsRoots) {
  ModelWatcher watcher;
  watcher.set_roots({"/ws/models", "/ws/extra/one.pt"});
  EXPECT_TRUE(watcher.watches("/ws/models/a.pt"));
  EXPECT_TRUE(watcher.watches("/ws/models/sub/../b.pt"));
  EXPECT_TRUE(watcher.watches("/ws/extra/one.pt"));
  EXPECT_FALSE(watcher.watches("/ws/models-old/a.pt"));
  EXPECT_FALSE(watcher.watches("/ws/inputs/x.pt"));
  EXPECT_FALSE(watcher.watches("/ws/models/../inputs/x.pt"));
}

// A directory whose entries did not change is not listed again; one that changed (its time moved,
// or it had changed just before it was listed) is.
TEST(ServerWatcher, ListsOnlyDirectoriesThatChanged) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("qlint-listings-" + std::to_string(::getpid()));
  fs::create_directories(dir / "sub" / ".hidden");
  auto touch = [](const fs::path& file) { std::ofstream(file) << "x"; };
  touch(dir / "sub" / "a.pt");
  touch(dir / "sub" / ".hidden" / "h.pt");
  touch(dir / "notes.txt");
  auto models = [&](DirectoryListings& listings) {
    std::vector<std::string> out;
    listings.add_models_under(dir.string(), out);
    listings.forget_unvisited();
    std::sort(out.begin(), out.end());
    return out;
  };
  const std::string a = (dir / "sub" / "a.pt").string(), b = (dir / "sub" / "b.pt").string();

  // Changed just before it was listed: listed again, even when its time looks the same.
  DirectoryListings racy;
  EXPECT_EQ(models(racy), std::vector<std::string>{a});
  const fs::file_time_type recent = fs::last_write_time(dir / "sub");
  touch(b);
  fs::last_write_time(dir / "sub", recent);
  EXPECT_EQ(models(racy), (std::vector<std::string>{a, b}));

  // Unchanged for long before it was listed: its listing is kept while its time stays (b removed
  // behind the time's back still shows), and dropped when the time moves.
  const fs::file_time_type old = fs::file_time_type::clock::now() - std::chrono::hours(1);
  fs::last_write_time(dir / "sub", old);
  DirectoryListings settled;
  EXPECT_EQ(models(settled), (std::vector<std::string>{a, b}));
  fs::remove(b);
  fs::last_write_time(dir / "sub", old);
  EXPECT_EQ(models(settled), (std::vector<std::string>{a, b}));
  fs::last_write_time(dir / "sub", old + std::chrono::seconds(1));
  EXPECT_EQ(models(settled), std::vector<std::string>{a});
  fs::remove_all(dir);
  EXPECT_EQ(models(settled), std::vector<std::string>{});
}

// The check cache keeps a check only when nothing it read changed meanwhile, and never one made
// before the configuration changed; a FIFO named like a model has no digest (and does not block).
TEST(ServerCheckCache, KeepsOnlyChecksNothingOverturned) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("qlint-cache-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string model = (dir / "m.pt").string(), source = (dir / "m.py").string();
  std::ofstream(model) << "archive";
  std::ofstream(source) << "x = 1\n";
  const auto old = fs::file_time_type::clock::now() - std::chrono::hours(1);
  fs::last_write_time(source, old);
  const uint64_t digest = *file_digest(model);
  Finding found;
  found.path = source;

  CheckCache cache;
  cache.store(model, digest, cache.ticket(), {found}, {});
  ASSERT_TRUE(cache.unchanged(model, digest).has_value());
  EXPECT_FALSE(cache.unchanged(model, digest + 1).has_value());  // other bytes
  fs::last_write_time(source, old + std::chrono::seconds(1));
  EXPECT_FALSE(cache.unchanged(model, digest).has_value());  // the source changed

  CheckCache::Ticket before = cache.ticket();
  cache.clear();  // the configuration changed during that check
  cache.store(model, digest, before, {found}, {});
  EXPECT_FALSE(cache.unchanged(model, digest).has_value());

  CheckCache::Ticket during = cache.ticket();
  std::ofstream(source) << "x = 2\n";  // written while the check ran
  cache.store(model, digest, during, {found}, {});
  EXPECT_FALSE(cache.unchanged(model, digest).has_value());

  const std::string fifo = (dir / "fifo.pt").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(file_digest(fifo), std::nullopt);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace qlint::server
