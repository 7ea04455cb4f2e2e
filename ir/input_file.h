// What qlint reads from files it does not trust (models, FX exports, configurations, the
// source files a model's debug info names), and how far: the resource limits, the checks on a
// file before it is opened, and the one way to read a source line for a snippet. LibTorch-free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace qlint::ir {

// Every bound qlint puts on an input. A limit hit is an ImportError naming the limit
// (limit_error); `--limit NAME=VALUE` raises one (docs/reliability.md lists them).
struct Limits {
  uint64_t file_bytes = 256ull << 20;           // an FX export or a configuration file
  uint64_t archive_member_bytes = 4ull << 30;   // one inflated member of an archive
  uint64_t archive_bytes = 16ull << 30;         // all members, inflated
  uint64_t archive_members = 100000;            // members in one archive
  uint64_t compression_ratio = 200;             // inflated/deflated, for members over 1 MiB
  uint64_t pickle_bytes = 1ull << 30;           // one pickle (data.pkl, debug info)
  uint64_t json_depth = 100;                    // nesting of an FX export
  uint64_t graph_nodes = 2000000;               // nodes of an FX export
  uint64_t chain_length = 50000;                // operations in a chain LibTorch's interpreter runs
  uint64_t parse_seconds = 600;                 // Clang's time on one C++ file (`qlint cxx`)
  uint64_t line = 10000000;                     // a line number in debug info or an export
  uint64_t column = 100000;                     // a column
  uint64_t snippet_chars = 400;                 // characters of a source line shown
  uint64_t source_file_bytes = 16ull << 20;     // a source file read for a snippet
  std::vector<std::string> source_roots;        // besides the working directory and the model's
  bool no_exec = false;                         // refuse archives whose loading runs their code
  std::string no_exec_reason = "of --no-exec";  // why, for the message: "... refused because of --no-exec"
};

// The process's limits (the CLI sets them once, before any model is read; the LibTorch plugin
// gets a copy through TorchBackend::set_limits).
Limits& limits();

// Parses "NAME=VALUE" (VALUE an integer with an optional K, M, G suffix) into `limits`; throws
// std::invalid_argument naming the known limits otherwise.
void set_limit(Limits& limits, const std::string& assignment);

// "is N bytes, over the limit file-bytes (256 MiB); raise it with --limit file-bytes=BYTES"
// The limits' names, as --limit takes them: "archive-bytes, archive-member-bytes, ...".
std::string known_limits();

std::string limit_error(const std::string& what, const std::string& limit, uint64_t value);

// Throws ImportError unless `path` is a regular file (after following symbolic links) of at most
// `max_bytes` bytes: "no such file", "is a loop of symbolic links", "is not a regular file (a
// FIFO)", ... `limit_name` names the limit for the message.
void check_regular_file(const std::string& path, uint64_t max_bytes, const std::string& limit_name);

// Up to `n` bytes of `fd` at `offset` into `buf`: fewer only at the end of the file. EINTR is
// retried; a read error throws ImportError ("cannot be read: ...").
size_t pread_fully(int fd, uint64_t offset, void* buf, size_t n);

// A source file a model's debug info names, or nullopt: only a regular file, no larger than
// limits().source_file_bytes, holding text (no NUL byte), that lies (symbolic links resolved)
// under the working directory or `model_file`'s directory, the git repository either is in, or
// limits().source_roots. Never blocks on a FIFO or a device.
std::optional<std::string> read_source_file(const std::string& file, const std::string& model_file);

// Whether `file` (symbolic links resolved) lies where read_source_file reads from: under the
// working directory or `model_file`'s directory, the git repository either is in, or
// limits().source_roots. Text from anywhere else is never shown (`qlint cxx` errors included).
bool is_project_file(const std::string& file, const std::string& model_file);

// Line `line` of such a file (without its line break), or nullopt.
std::optional<std::string> read_source_line(const std::string& file, int64_t line, const std::string& model_file);

// `text` safe to print on one line: invalid UTF-8 bytes and control characters as \xNN, cut to
// `max_chars` characters with "..." when longer.
std::string printable(const std::string& text, size_t max_chars = 400);

// Whether `text` is valid UTF-8.
bool valid_utf8(const std::string& text);

// A frame of the stack torch.jit.trace records as a traced node's source ("/src/model.py(13):
// forward"): the file and the line (within limits().line), or nullopt.
// With `any_line`, the shape alone: the line number may be past the limit (then 0).
std::optional<std::pair<std::string, int>> traced_frame(const std::string& entry, bool any_line = false);

// Parses a decimal integer in [lo, hi]; nullopt for anything else (no exception, no overflow).
std::optional<int64_t> parse_int(const std::string& text, int64_t lo, int64_t hi);

}  // namespace qlint::ir
