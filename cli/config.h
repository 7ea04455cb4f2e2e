// Project configuration: `.qlint.toml`, or `[tool.qlint]` in `pyproject.toml`, found from a
// model's directory upward (docs/configuration.md). Command-line options take precedence.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "rules/diagnostic.h"

namespace qlint::cli {

// An unreadable file, an unknown key or a bad value: one line naming the file and the key.
struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Config {
  std::string file;  // where it was read from ("" when no file applies)
  std::optional<std::vector<std::string>> select;
  std::vector<std::string> ignore;
  std::map<std::string, Severity> severity;
  std::vector<std::string> quant_stub_classes;
  std::vector<std::string> dequant_stub_classes;
  std::vector<std::pair<std::string, std::vector<std::string>>> per_file_ignores;  // glob -> rules
  std::optional<int> bits;
  std::optional<double> min_sqnr;               // dB; sim-divergence's output threshold
  std::vector<std::string> operator_libraries;  // absolute, or relative to the config file's directory
  // `qlint server` only (docs/server.md): the shell command that re-exports the models when a
  // Python file is saved (run in the config file's directory), the calibration inputs it
  // simulates on, and the models it watches instead of the whole workspace; paths as above.
  std::optional<std::string> export_command;
  std::vector<std::string> inputs;
  std::vector<std::string> models;
  std::vector<std::string> quant_functions;  // C++: a toolchain's own quantize functions

  // Rules that per-file-ignores switch off for a model or source file (paths matched
  // relative to the config file's directory).
  std::vector<std::string> ignored_for(const std::string& path) const;
};

// Reads an explicit file: a `.qlint.toml`-style file, or a pyproject.toml with [tool.qlint].
Config load_config(const std::string& path);
// The same on a file's text (`path` names it in messages and decides pyproject.toml).
Config parse_config(const std::string& text, const std::string& path);

// The nearest config above `start` (a file or directory): a `.qlint.toml`, or a
// `pyproject.toml` that has a [tool.qlint] table. nullopt when there is none. With `roots`, only
// directories at or under one of them are searched (`qlint server` trusts no configuration above
// the workspace it was given).
std::optional<Config> find_config(const std::string& start, const std::vector<std::string>& roots = {});

// The names of the files find_config reads, nearest first in each directory.
inline constexpr const char* kConfigFileNames[] = {".qlint.toml", "pyproject.toml"};
// Every file find_config(start, roots) would look at, whether it exists or not: what to watch
// for a configuration that appears, changes or goes (`qlint server`).
std::vector<std::string> config_candidates(const std::string& start, const std::vector<std::string>& roots);
// Whether `path` is named as a configuration file is (.qlint.toml, pyproject.toml).
bool is_config_file(const std::string& path);

// Whether `path` is `root` or lies below it, compared as absolute, lexically normal paths.
bool is_within(const std::string& path, const std::string& root);

}  // namespace qlint::cli
