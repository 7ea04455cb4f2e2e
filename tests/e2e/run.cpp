#include "run.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace qlint::testing {

namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

RunResult run_qlint_configured(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {QLINT_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(argv);
}

RunResult run_qlint(const std::vector<std::string>& args) {
  static const std::set<std::string> other_commands = {"dump", "sim",    "rules",    "explain",
                                                       "docs", "--help", "--version"};
  bool is_check = args.empty() || !other_commands.count(args[0]);
  bool has_config = std::find(args.begin(), args.end(), "--config") != args.end();
  std::vector<std::string> with = args;
  if (is_check && !has_config) {
    if (with.empty() || with[0] != "check") with.insert(with.begin(), "check");
    with.insert(with.begin() + 1, "--isolated");
  }
  return run_qlint_configured(with);
}

RunResult run_reference(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {QLINT_PYTHON, std::string(QLINT_SOURCE_DIR) + "/tests/sim/reference.py"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(argv);
}

RunResult run_qlint_with_env(const std::vector<std::string>& env, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {QLINT_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(argv, env);
}

RunResult run_program(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  char err_path[] = "/tmp/qlint-e2e-stderr-XXXXXX";
  int fd = mkstemp(err_path);
  if (fd < 0) throw std::runtime_error("mkstemp failed");
  close(fd);
  std::string cmd = "cd " + shell_quote(QLINT_SOURCE_DIR) + " && env NO_COLOR=1";
  for (const auto& assignment : env) cmd += " " + shell_quote(assignment);
  for (const auto& a : argv) cmd += " " + shell_quote(a);
  cmd += " 2>" + shell_quote(err_path) + " </dev/null";
  RunResult result;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("popen failed");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) result.out.append(buf, n);
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.err = slurp(err_path);
  std::remove(err_path);
  return result;
}

std::string example_model(const std::string& name) {
  std::string path = name.find('/') == std::string::npos ? "seed/" + name : name;
  return std::string(QLINT_BUILD_DIR) + "/examples/" + path + ".pt";
}

std::string build_path(const std::string& relative) { return std::string(QLINT_BUILD_DIR) + "/" + relative; }

std::string example_input(const std::string& name) { return build_path("examples/inputs/" + name + ".pt"); }

std::string example_source(const std::string& name) {
  return std::string(QLINT_SOURCE_DIR) + "/examples/" + name + ".py";
}

}  // namespace qlint::testing
