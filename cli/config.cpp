#include "cli/config.h"

#include <fnmatch.h>
#include <toml++/toml.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "ir/import_error.h"
#include "ir/input_file.h"

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

// Paths as the config file names them: absolute, or relative to its directory.
std::vector<std::string> paths_beside(const std::string& file, const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& path : paths) out.push_back((fs::path(file).parent_path() / path).lexically_normal().string());
  return out;
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
      c.operator_libraries = paths_beside(file, string_list(node, file, key));
    } else if (key == "export") {
      c.export_command = node.value<std::string>();
      if (!c.export_command || c.export_command->empty()) fail(file, "`export` must be a shell command (a string)");
    } else if (key == "inputs") {
      c.inputs = paths_beside(file, string_list(node, file, key));
    } else if (key == "models") {
      c.models = paths_beside(file, string_list(node, file, key));
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
                     "dequant-stub-classes, per-file-ignores, bits, min-sqnr, operator-libraries, "
                     "export, inputs, models, quant-functions)");
    }
  }
  return c;
}

bool bare_key_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '"' || c == '\'';
}

// toml++ 3.x has two kinds of undefined behaviour on input (found by fuzz/config_fuzz.cpp, with
// toml++ compiled into the fuzzer): it assumes (TOML_ASSERT_ASSUME) that a table header's '['
// is followed by a key, which `[,` or a '[' ending its line break; and its whitespace test
// reaches TOML_UNREACHABLE for U+00A1 to U+0499 and U+FCC6 to U+FEFE. So before toml++ sees a
// configuration, its table headers are checked, those characters are refused outside comments
// (TOML allows non-ASCII only in strings and comments), and non-ASCII bytes in comments become
// '?'. toml++ also recurses once per part of a dotted key (`a.b.c = 1` is three tables deep) and
// per level of arrays and inline tables, so keys of more than kMaxKeyParts parts and nesting
// deeper than kMaxTomlDepth are refused first. Returns the text to parse; throws ConfigError.
constexpr int kMaxKeyParts = 64;
constexpr int kMaxTomlDepth = 64;

std::string guarded_toml(const std::string& text, const std::string& file) {
  std::string out = text;
  int line = 1, depth = 0;
  int dots = 0;  // in the key (or value) being read: reset at each '=', ',', '{' and line
  bool line_start = true;
  auto count_dot = [&] {
    if (++dots >= kMaxKeyParts)
      fail(file, "line " + std::to_string(line) + ": a dotted key of more than " + std::to_string(kMaxKeyParts) +
                     " parts; qlint's configuration has no such keys");
  };
  auto refuse_character = [&](size_t i) {
    unsigned char b0 = static_cast<unsigned char>(text[i]);
    char32_t c = 0;
    if ((b0 >> 5) == 0x6 && i + 1 < text.size())
      c = (static_cast<char32_t>(b0 & 0x1F) << 6) | (static_cast<char32_t>(text[i + 1]) & 0x3F);
    else if ((b0 >> 4) == 0xE && i + 2 < text.size())
      c = (static_cast<char32_t>(b0 & 0x0F) << 12) | ((static_cast<char32_t>(text[i + 1]) & 0x3F) << 6) |
          (static_cast<char32_t>(text[i + 2]) & 0x3F);
    if ((c >= 0xA1 && c <= 0x499) || (c >= 0xFCC6 && c <= 0xFEFE)) {
      char code[16];
      std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(c));
      fail(file, "line " + std::to_string(line) + ": the character " + code +
                     " is one qlint's TOML parser (toml++ 3) mishandles; use it only in comments");
    }
  };
  const size_t bom = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;  // toml++ skips it
  for (size_t i = bom; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = true;
      dots = 0;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') continue;
    bool at_start = line_start;
    line_start = false;
    if (static_cast<unsigned char>(c) >= 0x80) {
      refuse_character(i);
    } else if (c == '#') {
      for (; i + 1 < text.size() && text[i + 1] != '\n'; ++i)
        if (static_cast<unsigned char>(text[i + 1]) >= 0x80) out[i + 1] = '?';
    } else if (c == '"' || c == '\'') {
      bool multi = text.compare(i, 3, std::string(3, c)) == 0;
      size_t j = i + (multi ? 3 : 1);
      for (; j < text.size(); ++j) {
        if (static_cast<unsigned char>(text[j]) >= 0x80) refuse_character(j);
        if (c == '"' && text[j] == '\\') {
          ++j;
          if (j < text.size() && static_cast<unsigned char>(text[j]) >= 0x80) refuse_character(j);
          continue;
        }
        if (text[j] == '\n') {
          if (!multi) break;
          ++line;
        }
        if (text[j] == c && (!multi || text.compare(j, 3, std::string(3, c)) == 0)) {
          if (multi) j += 2;
          break;
        }
      }
      i = j < text.size() && text[j] == '\n' ? j - 1 : j;
    } else if (c == '[' && at_start && depth == 0) {  // a table header
      size_t j = i + 1;
      if (j < text.size() && text[j] == '[') ++j;
      while (j < text.size() && (text[j] == ' ' || text[j] == '\t')) ++j;
      if (j >= text.size() || !bare_key_char(text[j]))
        fail(file, "line " + std::to_string(line) + ": expected a table name after '['");
      for (; i + 1 < text.size() && text[i + 1] != '\n'; ++i) {
        if (static_cast<unsigned char>(text[i + 1]) >= 0x80) refuse_character(i + 1);
        if (text[i + 1] == '.') count_dot();
      }
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxTomlDepth)
        fail(file, "line " + std::to_string(line) + ": arrays or inline tables nested deeper than " +
                       std::to_string(kMaxTomlDepth) + " levels");
      if (c == '{') dots = 0;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == '=' || c == ',') {
      dots = 0;
    } else if (c == '.') {
      count_dot();
    }
  }
  return out;
}

toml::table parse_text(const std::string& raw, const std::string& file) {
  const std::string text = guarded_toml(raw, file);
  try {
    return toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    fail(file,
         "line " + std::to_string(e.source().begin.line) + ": " + ir::printable(std::string(e.description()), 200));
  }
}

// Only a regular file within the limit file-bytes (never a FIFO that would hang the read).
toml::table parse(const std::string& file) {
  try {
    ir::check_regular_file(file, ir::limits().file_bytes, "file-bytes");
  } catch (const ir::ImportError& e) {
    fail(file, e.what());
  }
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return parse_text(text.str(), file);
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

Config parse_config(const std::string& text, const std::string& path) {
  toml::table table = parse_text(text, path);
  if (fs::path(path).filename() == "pyproject.toml") {
    const toml::table* section = qlint_section(table);
    if (section != nullptr) return from_table(*section, path);
    Config empty;
    empty.file = path;
    return empty;
  }
  return from_table(table, path);
}

Config load_config(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) fail(path, "no such config file");
  toml::table table = parse(path);  // a FIFO, a device or a directory: says which
  if (fs::path(path).filename() == "pyproject.toml") {
    const toml::table* section = qlint_section(table);
    if (section != nullptr) return from_table(*section, path);
    Config empty;  // a pyproject.toml without [tool.qlint] configures nothing
    empty.file = path;
    return empty;
  }
  return from_table(table, path);
}

bool is_within(const std::string& path, const std::string& root) {
  std::error_code ec;
  const fs::path p = fs::absolute(path, ec).lexically_normal(), r = fs::absolute(root, ec).lexically_normal();
  auto pi = p.begin();
  for (auto ri = r.begin(); ri != r.end(); ++ri, ++pi) {
    if (ri->empty() && std::next(ri) == r.end()) break;  // a trailing '/'
    if (pi == p.end() || *pi != *ri) return false;
  }
  return true;
}

namespace {
// The directories find_config searches from `start`, nearest first.
std::vector<fs::path> searched_directories(const std::string& start, const std::vector<std::string>& roots) {
  std::error_code ec;
  fs::path dir = fs::absolute(start, ec).lexically_normal();
  if (!fs::is_directory(dir, ec)) dir = dir.parent_path();
  auto searched = [&](const fs::path& d) {
    if (roots.empty()) return true;
    for (const auto& root : roots)
      if (is_within(d.string(), root)) return true;
    return false;
  };
  std::vector<fs::path> dirs;
  for (; !dir.empty() && searched(dir); dir = dir.parent_path()) {
    dirs.push_back(dir);
    if (dir == dir.root_path()) break;
  }
  return dirs;
}
}  // namespace

std::optional<Config> find_config(const std::string& start, const std::vector<std::string>& roots) {
  std::error_code ec;
  for (const fs::path& dir : searched_directories(start, roots)) {
    // One that is there but not a regular file (a FIFO, a directory) is an error, never skipped:
    // the user meant it to apply.
    if (fs::exists(dir / ".qlint.toml", ec)) return load_config((dir / ".qlint.toml").string());
    fs::path pyproject = dir / "pyproject.toml";
    if (fs::exists(pyproject, ec)) {
      toml::table table = parse(pyproject.string());
      if (const toml::table* section = qlint_section(table)) return from_table(*section, pyproject.string());
    }
  }
  return std::nullopt;
}

std::vector<std::string> config_candidates(const std::string& start, const std::vector<std::string>& roots) {
  std::vector<std::string> files;
  for (const fs::path& dir : searched_directories(start, roots))
    for (const char* name : kConfigFileNames) files.push_back((dir / name).string());
  return files;
}

bool is_config_file(const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  for (const char* config_name : kConfigFileNames)
    if (name == config_name) return true;
  return false;
}

}  // namespace qlint::cli
