#include "cli/config.h"

#include <fnmatch.h>
#include <toml++/toml.h>

#include <cmath>
#include <filesystem>
#include <set>

namespace qlint::cli {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& file, const std::string& message) {
  throw ConfigError(file + ": " + message);
}

std::vector<std::string> string_list(const toml::node& node, const std::string& file, const std::string& key) {
  const toml::array* array = node.as_array();
  if (array == nullptr) fail(file, "`" + key + "` must be a list of strings");
  std::vector<std::string> out;
  for (const auto& item : *array) {
    auto value = item.value<std::string>();
    if (!value) fail(file, "`" + key + "` must be a list of strings");
    out.push_back(*value);
  }
  return out;
}

Severity severity_of(const toml::node& node, const std::string& file, const std::string& rule) {
  auto name = node.value<std::string>();
  if (name == "error") return Severity::Error;
  if (name == "warning") return Severity::Warning;
  if (name == "note") return Severity::Note;
  fail(file, "severity of `" + rule + "` must be \"error\", \"warning\" or \"note\"");
}

const toml::table& table_of(const toml::node& node, const std::string& file, const std::string& key) {
  const toml::table* t = node.as_table();
  if (t == nullptr) fail(file, "`" + key + "` must be a table");
  return *t;
}

Config from_table(const toml::table& table, const std::string& file) {
  Config c;
  c.file = file;
  for (const auto& [key_view, node] : table) {
    std::string key(key_view.str());
    if (key == "select") {
      c.select = string_list(node, file, key);
    } else if (key == "ignore") {
      c.ignore = string_list(node, file, key);
    } else if (key == "severity") {
      for (const auto& [rule, value] : table_of(node, file, key))
        c.severity[std::string(rule.str())] = severity_of(value, file, std::string(rule.str()));
    } else if (key == "quant-stub-classes") {
      c.quant_stub_classes = string_list(node, file, key);
    } else if (key == "dequant-stub-classes") {
      c.dequant_stub_classes = string_list(node, file, key);
    } else if (key == "per-file-ignores") {
      for (const auto& [glob, rules] : table_of(node, file, key))
        c.per_file_ignores.emplace_back(std::string(glob.str()),
                                        string_list(rules, file, key + "." + std::string(glob.str())));
    } else if (key == "operator-libraries") {
      for (const auto& library : string_list(node, file, key))
        c.operator_libraries.push_back((fs::path(file).parent_path() / library).lexically_normal().string());
    } else if (key == "quant-functions") {
      c.quant_functions = string_list(node, file, key);
    } else if (key == "bits") {
      auto bits = node.value<int64_t>();
      if (bits != 16 && bits != 8) fail(file, "`bits` must be 16 or 8");
      c.bits = static_cast<int>(*bits);
    } else if (key == "min-sqnr") {
      auto db = node.value<double>();  // an integer converts too
      if (!db || !std::isfinite(*db)) fail(file, "`min-sqnr` must be a number of dB, e.g. 40");
      c.min_sqnr = *db;
    } else {
      fail(file, "unknown key `" + key +
                     "` (known: select, ignore, severity, quant-stub-classes, "
                     "dequant-stub-classes, per-file-ignores, bits, min-sqnr, operator-libraries, quant-functions)");
    }
  }
  return c;
}

toml::table parse(const std::string& file) {
  try {
    return toml::parse_file(file);
  } catch (const toml::parse_error& e) {
    fail(file, "line " + std::to_string(e.source().begin.line) + ": " + std::string(e.description()));
  }
}

// The [tool.qlint] table of a pyproject.toml, if it has one.
const toml::table* qlint_section(const toml::table& pyproject) {
  const toml::table* tool = pyproject["tool"].as_table();
  return tool ? (*tool)["qlint"].as_table() : nullptr;
}

}  // namespace

std::vector<std::string> Config::ignored_for(const std::string& path) const {
  std::vector<std::string> rules;
  if (per_file_ignores.empty()) return rules;
  std::error_code ec;
  fs::path base = fs::path(file).parent_path();
  std::string relative = fs::absolute(path, ec).lexically_relative(fs::absolute(base, ec)).string();
  for (const auto& [glob, ignored] : per_file_ignores)
    if (fnmatch(glob.c_str(), relative.c_str(), 0) == 0) rules.insert(rules.end(), ignored.begin(), ignored.end());
  return rules;
}

Config load_config(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) fail(path, "no such config file");
  toml::table table = parse(path);
  if (fs::path(path).filename() == "pyproject.toml") {
    const toml::table* section = qlint_section(table);
    if (section != nullptr) return from_table(*section, path);
    Config empty;  // a pyproject.toml without [tool.qlint] configures nothing
    empty.file = path;
    return empty;
  }
  return from_table(table, path);
}

std::optional<Config> find_config(const std::string& start) {
  std::error_code ec;
  fs::path dir = fs::absolute(start, ec);
  if (!fs::is_directory(dir, ec)) dir = dir.parent_path();
  for (; !dir.empty(); dir = dir.parent_path()) {
    if (fs::is_regular_file(dir / ".qlint.toml", ec)) return load_config((dir / ".qlint.toml").string());
    fs::path pyproject = dir / "pyproject.toml";
    if (fs::is_regular_file(pyproject, ec)) {
      toml::table table = parse(pyproject.string());
      if (const toml::table* section = qlint_section(table)) return from_table(*section, pyproject.string());
    }
    if (dir == dir.root_path()) break;
  }
  return std::nullopt;
}

}  // namespace qlint::cli
