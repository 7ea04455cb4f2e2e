// `qlint server`: a Language Server (LSP 3.17, JSON-RPC over stdio) that keeps LibTorch loaded,
// watches the workspace's models, re-checks one when it changes on disk and publishes each
// finding on the Python source range it maps to, with the fixes' Python edits as code actions
// and the rule's explanation on hover (docs/server.md).
//
// Threads: the caller's thread reads messages (and notes cancellations at once); a dispatcher
// answers them in order; one worker checks models, newest change first-come and a newer change
// to a model superseding a pending one; a poller watches the files; exports run on a thread of
// their own. The process ends only on `exit` (or when the client closes stdin).
#pragma once

#include <functional>
#include <istream>
#include <string>

#include "cli/commands.h"

namespace qlint::server {

struct ServerOptions {
  // Checks one model as `qlint check` does (cli::check_model); injected, so that this library
  // needs neither the command line nor LibTorch, and the binary's LibTorch plugin, loaded on the
  // first TorchScript model, stays loaded for every later check.
  std::function<cli::CheckOutcome(const std::string& model, const cli::CheckOptions& options)> check;
  cli::CheckOptions command_line;  // stub classes and operator libraries from the command line
  // Whether the workspace's configuration may make the server run commands (`export`) and
  // models (simulating on `inputs`); the client can also say so in initializationOptions.
  bool trusted = false;
  int poll_milliseconds = 1000;
  std::string docs_base;  // the rule pages' base URI; "" for none
};

// Serves the protocol on `in` and the file descriptor `out_fd` until `exit` (or the end of `in`);
// returns the exit code LSP asks for (0 after shutdown, 1 otherwise). Threads it started may
// still run, and use `in`: end the process soon after.
int serve(std::istream& in, int out_fd, const ServerOptions& options);

// serve() on stdin and stdout, then ends the process with its exit code. Whatever else writes
// to stdout (a library's warning) goes to stderr instead, so it cannot corrupt the protocol.
[[noreturn]] void serve_stdio(const ServerOptions& options);

// Where the rule pages are: $QLINT_DOCS_URL, or the address qlint was built with (CMake's
// QLINT_DOCS_URL), else the
// pages beside the binary: share/doc/qlint/rules in an installation, or docs/rules in a build
// tree inside the checkout, as a file:// URI ending in `/`; "" when absent.
std::string default_docs_base();

}  // namespace qlint::server
