#include "cli/server/config_edits.h"

#include <toml++/toml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <vector>

#include "cli/config.h"
#include "cli/formats.h"
#include "cli/server/findings.h"

namespace qlint::server {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr size_t kMaxEditedLine = 1024;

// Where an edit goes: a zero-based line and a byte offset in it; the text to insert.
struct Insertion {
  size_t line = 0;
  size_t byte = 0;
  std::string text;
};

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  if (text.empty() || text.back() == '\n') lines.push_back("");  // the position after the last newline
  return lines;
}

std::string inserted(const std::vector<std::string>& lines, const Insertion& at) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string line = lines[i];
    if (i == at.line) line.insert(at.byte, at.text);
    out += line + (i + 1 < lines.size() ? "\n" : "");
  }
  return out;
}

// The table's header as the file spells it: `[per-file-ignores]`, `[tool.qlint.per-file-ignores]`.
std::string table_name(const std::string& config_file) {
  return fs::path(config_file).filename() == "pyproject.toml" ? "tool.qlint.per-file-ignores" : "per-file-ignores";
}

bool is_header(const std::string& line) { return std::regex_search(line, std::regex(R"(^\s*\[)")); }

bool is_header_of(const std::string& line, const std::string& name) {
  std::string pattern = name;
  pattern = std::regex_replace(pattern, std::regex(R"(\.)"), R"(\s*\.\s*)");
  return std::regex_search(line, std::regex(R"(^\s*\[\s*)" + pattern + R"(\s*\]\s*(#.*)?$)"));
}

// The key of a `key = [...]` line, read by TOML itself; "" when the line is no such entry.
std::string entry_key(const std::string& line) {
  toml::table table;
  try {
    table = toml::parse(line);
  } catch (const toml::parse_error&) {
    return "";
  }
  if (table.size() != 1 || !table.begin()->second.is_array()) return "";
  return std::string(table.begin()->first.str());
}

// Where to add `rule` for `key`: in the entry's one-line array, as a new entry after the table's
// header, or as a new table at the end of the file.
std::optional<Insertion> insertion_for(const std::vector<std::string>& lines, const std::string& config_file,
                                       const std::string& key, const std::string& rule) {
  const std::string name = table_name(config_file);
  const std::string quoted_rule = json(rule).dump();
  const std::string entry = json(key).dump() + " = [" + quoted_rule + "]";
  for (size_t header = 0; header < lines.size(); ++header) {
    if (!is_header_of(lines[header], name)) continue;
    for (size_t i = header + 1; i < lines.size() && !is_header(lines[i]); ++i) {
      if (entry_key(lines[i]) != key) continue;
      static const std::regex one_line(R"(^[^\[]*\[([^\]]*)\]\s*(#.*)?$)");
      std::smatch m;
      if (!std::regex_match(lines[i], m, one_line)) return std::nullopt;  // a multi-line array
      const bool empty = m[1].str().find_first_not_of(" \t") == std::string::npos;
      return Insertion{i, static_cast<size_t>(m.position(1) + m.length(1)), (empty ? "" : ", ") + quoted_rule};
    }
    return Insertion{header, lines[header].size(), "\n" + entry};
  }
  const std::string& last = lines.back();
  return Insertion{
      lines.size() - 1, last.size(),
      (last.empty() ? "" : "\n") + std::string(lines.size() > 1 ? "\n" : "") + "[" + name + "]\n" + entry + "\n"};
}

// The relative path per-file-ignores matches (cli::Config::ignored_for, with fnmatch): its glob
// characters escaped, so that the entry names this file only.
std::string key_for(const std::string& config_file, const std::string& path) {
  std::error_code ec;
  const std::string relative =
      fs::absolute(path, ec).lexically_relative(fs::absolute(fs::path(config_file).parent_path(), ec)).string();
  std::string key;
  for (char c : relative) {
    if (c == '*' || c == '?' || c == '[' || c == '\\') key += '\\';
    key += c;
  }
  return key;
}

bool ignores(const cli::Config& config, const std::string& path, const std::string& rule) {
  const std::vector<std::string> listed = config.ignored_for(path);
  return std::find(listed.begin(), listed.end(), rule) != listed.end();
}

json position(const std::vector<std::string>& lines, size_t line, size_t byte) {
  return {{"line", line}, {"character", cli::utf16_column(&lines[line], static_cast<int>(byte) + 1) - 1}};
}

}  // namespace

namespace {

// Where the edit goes in `lines` (the configuration's `text`), once the edited text is known to
// parse and to ignore `rule` in `path`; nullopt when no edit can be made safely.
std::optional<Insertion> verified_insertion(const std::string& text, const std::vector<std::string>& lines,
                                            const std::string& config_file, const std::string& path,
                                            const std::string& rule) {
  try {
    const std::string key = key_for(config_file, path);
    // Globs are relative to the configuration's directory: a file outside it is no file of its.
    if (key.empty() || key.rfind("..", 0) == 0 || ignores(cli::parse_config(text, config_file), path, rule))
      return std::nullopt;
    // The lines are matched with std::regex and parsed one by one with toml++, both of which
    // recurse per character or key part: a line no hand-written configuration has is left alone.
    for (const std::string& line : lines)
      if (line.size() > kMaxEditedLine) return std::nullopt;
    std::optional<Insertion> at = insertion_for(lines, config_file, key, rule);
    if (!at || !ignores(cli::parse_config(inserted(lines, *at), config_file), path, rule)) return std::nullopt;
    return at;
  } catch (const std::exception&) {
    return std::nullopt;  // a configuration qlint cannot read: nothing to offer
  }
}

}  // namespace

std::optional<std::string> with_file_ignored(const std::string& text, const std::string& config_file,
                                             const std::string& path, const std::string& rule) {
  const std::vector<std::string> lines = split_lines(text);
  std::optional<Insertion> at = verified_insertion(text, lines, config_file, path, rule);
  if (!at) return std::nullopt;
  return inserted(lines, *at);
}

std::optional<json> ignore_in_file_edit(const IgnoreInFile& request) {
  if (request.config_file.empty()) {
    if (request.new_config.empty()) return std::nullopt;
    std::optional<std::string> text = with_file_ignored("", request.new_config, request.path, request.rule);
    if (!text) return std::nullopt;
    const std::string uri = file_uri(request.new_config);
    // Neither overwrite nor ignoreIfExists: a file that appeared meanwhile makes the edit fail
    // rather than get this text in front of its own.
    return json{{"documentChanges",
                 {{{"kind", "create"}, {"uri", uri}},
                  {{"textDocument", {{"uri", uri}, {"version", nullptr}}},
                   {"edits",
                    {{{"range", {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 0}, {"character", 0}}}}},
                      {"newText", *text}}}}}}}};
  }
  std::ifstream in(request.config_file, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  const std::vector<std::string> lines = split_lines(text);
  std::optional<Insertion> at = verified_insertion(text, lines, request.config_file, request.path, request.rule);
  if (!at) return std::nullopt;
  json where = position(lines, at->line, at->byte);
  return json{
      {"changes",
       {{file_uri(request.config_file), {{{"range", {{"start", where}, {"end", where}}}, {"newText", at->text}}}}}}};
}

}  // namespace qlint::server
