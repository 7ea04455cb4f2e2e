// Runs the real qlint binary for end-to-end tests.
#pragma once

#include <string>
#include <vector>

namespace qlint::testing {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `qlint args...` with the source tree as working directory (so diagnostics show
// repository-relative paths) and captures stdout, stderr and the exit code. Checks run with
// --isolated, so no configuration file around the checkout leaks into a test.
RunResult run_qlint(const std::vector<std::string>& args);

// The same, reading configuration files as users' runs do (for the configuration tests).
RunResult run_qlint_configured(const std::vector<std::string>& args);

// Runs a program (argv[0] looked up in PATH) the same way, with extra environment
// assignments such as "QLINT_FAILPOINT=...".
RunResult run_program(const std::vector<std::string>& argv, const std::vector<std::string>& env = {});

// run_qlint with extra environment assignments.
RunResult run_qlint_with_env(const std::vector<std::string>& env, const std::vector<std::string>& args);

// Runs tests/sim/reference.py with Debian's Python (PyTorch as the reference).
RunResult run_reference(const std::vector<std::string>& args);

// build/examples/<set>/<stem>.pt for "set/stem"; a bare stem is a seed example.
std::string example_model(const std::string& name);
std::string build_path(const std::string& relative);  // build/<relative>
// build/examples/inputs/<set>/<stem>.pt, the example's input, for "set/stem".
std::string example_input(const std::string& name);
// The example's Python source, examples/<set>/<stem>.py, for "set/stem".
std::string example_source(const std::string& name);

}  // namespace qlint::testing
