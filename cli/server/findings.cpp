#include "cli/server/findings.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <regex>

#include "cli/formats.h"
#include "cli/python_fixes.h"
#include "cli/server/config_edits.h"
#include "rules/registry.h"

namespace qlint::server {

namespace {

namespace fs = std::filesystem;

// LSP DiagnosticSeverity: 1 error, 2 warning, 3 information.
int lsp_severity(Severity s) { return s == Severity::Error ? 1 : s == Severity::Warning ? 2 : 3; }

std::string absolute_path(const std::string& path, const std::string& root) {
  if (path.empty() || path[0] == '/' || root.empty()) return path;
  return (fs::path(root) / path).lexically_normal().string();
}

// A qlint location (1-based lines, 1-based byte columns, end exclusive) as an LSP range. `lines`
// gives the text that converts bytes to UTF-16 units: `line_text(n)` or null.
template <typename LineText>
Range lsp_range(const ir::SourceLoc& loc, LineText line_text) {
  Range r;
  r.start_line = std::max(loc.line - 1, 0);
  r.start_character = std::max(cli::utf16_column(line_text(loc.line), loc.column) - 1, 0);
  r.end_line = std::max(loc.end_line - 1, r.start_line);
  r.end_character = std::max(cli::utf16_column(line_text(loc.end_line), loc.end_column) - 1, 0);
  if (r.end_line == r.start_line && r.end_character < r.start_character) r.end_character = r.start_character;
  return r;
}

std::string message_with_notes(const Diagnostic& d) {
  std::string text = d.message;
  for (const auto& note : d.notes) text += "\n" + note;
  return text;
}

nlohmann::json lsp_diagnostic(const Diagnostic& d, const Range& range, const FindingOptions& options,
                              const std::string& model_file) {
  nlohmann::json diagnostic = {
      {"range", range.to_json()}, {"severity", lsp_severity(d.severity)}, {"code", d.rule},
      {"source", "qlint"},        {"message", message_with_notes(d)},     {"data", {{"model", model_file}}}};
  if (!options.docs_base.empty() && rules::find_rule(d.rule) != nullptr)
    diagnostic["codeDescription"] = {{"href", options.docs_base + d.rule + ".md"}};
  return diagnostic;
}

// A fix's Python edits as a WorkspaceEdit; null when an edit is in a file without a path.
nlohmann::json workspace_edit(const cli::PythonFix& fix, rewriter::SourceFiles& sources,
                              const FindingOptions& options) {
  nlohmann::json changes = nlohmann::json::object();
  for (const auto& [file, edits] : fix.edits) {
    if (cli::is_pseudo_file(file)) return nullptr;
    const std::vector<std::string>* lines = sources.lines(file);
    auto line_text = [lines](int n) -> const std::string* {
      return lines != nullptr && n >= 1 && n <= static_cast<int>(lines->size()) ? &(*lines)[n - 1] : nullptr;
    };
    nlohmann::json text_edits = nlohmann::json::array();
    for (const auto& e : edits)
      text_edits.push_back({{"range", lsp_range(e.region, line_text).to_json()}, {"newText", e.text}});
    changes[file_uri(absolute_path(file, options.root))] = text_edits;
  }
  return {{"changes", changes}};
}

// Safe fixes are quick fixes (the preferred one first); unsafe ones say so in their title and
// kind (`quickfix.unsafe`, a sub-kind clients list with quick fixes). Display-only fixes are
// never applied, so they are not offered.
std::vector<nlohmann::json> actions_of(const cli::ModelReport& report, const Diagnostic& d, cli::PythonFixScope& scope,
                                       const FindingOptions& options) {
  std::vector<nlohmann::json> actions;
  bool preferred_given = false;
  for (const auto& python_fix : cli::python_fixes(report, d, scope)) {
    const Applicability applicability = python_fix.fix->applicability;
    if (applicability == Applicability::DisplayOnly) continue;
    nlohmann::json edit = workspace_edit(python_fix, scope.sources, options);
    if (edit.is_null()) continue;
    const bool safe = applicability == Applicability::Safe;
    nlohmann::json action = {
        {"title", "qlint: " + python_fix.fix->description + (safe ? "" : " (unsafe: may change float results)")},
        {"kind", safe ? "quickfix" : "quickfix.unsafe"},
        {"edit", edit}};
    if (safe && !preferred_given) action["isPreferred"] = preferred_given = true;
    actions.push_back(action);
  }
  return actions;
}

// "Ignore `rule` on this line": a `# qlint: ignore[rule]` comment at the end of the finding's
// first line (where suppressions are read), or the rule added to the one already there. Offered
// only where the line on disk is the one the model was exported from.
std::optional<nlohmann::json> ignore_action(const cli::ModelReport& report, const Diagnostic& d,
                                            rewriter::SourceFiles& sources, const FindingOptions& options) {
  if (!d.loc.known() || cli::is_pseudo_file(d.loc.file) || d.rule.empty()) return std::nullopt;
  const std::vector<std::string>* lines = sources.lines(d.loc.file);
  const std::string* recorded = report.model->source_line(d.loc.file, d.loc.line);
  if (lines == nullptr || recorded == nullptr || d.loc.line > static_cast<int>(lines->size()) ||
      (*lines)[static_cast<size_t>(d.loc.line) - 1] != *recorded)
    return std::nullopt;
  const std::string& text = *recorded;
  // The comment rules::find_suppressions reads (the first one on the line).
  static const std::regex comment(R"((#|//)\s*qlint:\s*ignore\[([^\]]*)\])");
  ir::SourceLoc at{d.loc.file, d.loc.line, static_cast<int>(text.size()) + 1, d.loc.line,
                   static_cast<int>(text.size()) + 1};
  std::string insert = "  # qlint: ignore[" + d.rule + "]";
  std::smatch m;
  if (text.size() <= 4096 && std::regex_search(text, m, comment)) {
    const size_t close = static_cast<size_t>(m.position(0) + m.length(0)) - 1;  // the `]`
    at.column = at.end_column = static_cast<int>(close) + 1;
    insert = (m[2].length() == 0 ? "" : ", ") + d.rule;
  }
  auto line_text = [&text](int) { return &text; };
  nlohmann::json edit = {{"range", lsp_range(at, line_text).to_json()}, {"newText", insert}};
  return nlohmann::json{{"title", "qlint: ignore `" + d.rule + "` on this line"},
                        {"kind", "quickfix"},
                        {"edit", {{"changes", {{file_uri(absolute_path(d.loc.file, options.root)), {edit}}}}}}};
}

std::string hover_text(const Diagnostic& d, const std::string& model_file) {
  std::string text = "**qlint `" + d.rule + "`** (" + severity_name(d.severity) + "): " + d.message + "\n";
  for (const auto& note : d.notes) text += "\n- " + note;
  text += "\n\nFound in `" + ir::display_path(model_file) + "`.";
  if (const rules::Rule* rule = rules::find_rule(d.rule)) text += "\n\n---\n\n" + cli::rule_help_markdown(*rule);
  return text;
}

}  // namespace

nlohmann::json Range::to_json() const {
  return {{"start", {{"line", start_line}, {"character", start_character}}},
          {"end", {{"line", end_line}, {"character", end_character}}}};
}

Range Range::from_json(const nlohmann::json& range) {
  Range r;
  r.start_line = range.at("start").at("line").get<int>();
  r.start_character = range.at("start").at("character").get<int>();
  r.end_line = range.at("end").at("line").get<int>();
  r.end_character = range.at("end").at("character").get<int>();
  return r;
}

bool Range::intersects(const Range& other) const {
  auto before = [](int l1, int c1, int l2, int c2) { return l1 < l2 || (l1 == l2 && c1 < c2); };
  return !before(end_line, end_character, other.start_line, other.start_character) &&
         !before(other.end_line, other.end_character, start_line, start_character);
}

bool Range::operator==(const Range& o) const {
  return start_line == o.start_line && start_character == o.start_character && end_line == o.end_line &&
         end_character == o.end_character;
}

std::vector<Finding> findings_of(const cli::ModelReport& report, const FindingOptions& options) {
  std::vector<Finding> out;
  cli::PythonFixScope scope;
  const std::string model_file = absolute_path(report.model_file, options.root);
  for (const auto& d : report.diagnostics) {
    Finding f;
    f.model = model_file;
    f.rule = d.rule;
    if (d.loc.known() && !cli::is_pseudo_file(d.loc.file)) {
      f.path = absolute_path(d.loc.file, options.root);
      f.range = lsp_range(d.loc, [&](int n) { return report.model->source_line(d.loc.file, n); });
    } else {
      f.path = model_file;  // no Python line to show it on: the model file's first line
    }
    f.diagnostic = lsp_diagnostic(d, f.range, options, model_file);
    f.actions = actions_of(report, d, scope, options);
    if (auto ignore = ignore_action(report, d, scope.sources, options)) f.actions.push_back(std::move(*ignore));
    f.hover = hover_text(d, model_file);
    out.push_back(std::move(f));
  }
  return out;
}

Finding load_failure(const std::string& model_file, const std::string& message) {
  Finding f;
  f.model = model_file;
  f.path = model_file;
  f.diagnostic = {{"range", f.range.to_json()},
                  {"severity", 1},
                  {"code", "input-error"},
                  {"source", "qlint"},
                  {"message", ir::first_line(message)},
                  {"data", {{"model", model_file}}}};
  f.hover = "**qlint** could not check this model: " + ir::first_line(message);
  return f;
}

nlohmann::json code_actions(const std::vector<const Finding*>& on_file, const Range& range) {
  nlohmann::json actions = nlohmann::json::array();
  for (const Finding* f : on_file) {
    if (!f->range.intersects(range)) continue;
    for (nlohmann::json action : f->actions) {
      action["diagnostics"] = nlohmann::json::array({f->diagnostic});
      actions.push_back(std::move(action));
    }
  }
  return actions;
}

nlohmann::json ignore_in_file_action(const Finding& f, const std::string& config_file, const std::string& new_config) {
  if (f.rule.empty()) return nullptr;
  auto edit = ignore_in_file_edit({config_file, new_config, f.path, f.rule});
  if (!edit) return nullptr;
  const std::string config = config_file.empty() ? new_config : config_file;
  return {{"title", "qlint: ignore `" + f.rule + "` in this file (per-file-ignores in " +
                        fs::path(config).filename().string() + ")"},
          {"kind", "quickfix"},
          {"diagnostics", nlohmann::json::array({f.diagnostic})},
          {"edit", std::move(*edit)}};
}

nlohmann::json fix_all_action(const std::vector<const Finding*>& on_file) {
  std::map<std::string, std::vector<std::pair<Range, std::string>>> taken;  // uri -> edits so far
  auto fits = [&](const std::string& uri, const Range& range, const std::string& text) {
    for (const auto& [other, other_text] : taken[uri])
      if (other.intersects(range) && !(other == range && other_text == text)) return false;
    return true;
  };
  nlohmann::json changes = nlohmann::json::object();
  size_t fixes = 0;
  for (const Finding* f : on_file) {
    auto preferred = std::find_if(f->actions.begin(), f->actions.end(),
                                  [](const nlohmann::json& a) { return a.value("isPreferred", false); });
    if (preferred == f->actions.end()) continue;
    const nlohmann::json& edit_changes = (*preferred)["edit"]["changes"];
    bool all_fit = true;
    for (const auto& [uri, edits] : edit_changes.items())
      for (const auto& e : edits) all_fit = all_fit && fits(uri, Range::from_json(e["range"]), e["newText"]);
    if (!all_fit) continue;
    for (const auto& [uri, edits] : edit_changes.items())
      for (const auto& e : edits) {
        const Range range = Range::from_json(e["range"]);
        const std::string text = e["newText"];
        auto& list = taken[uri];
        if (std::find(list.begin(), list.end(), std::pair(range, text)) != list.end()) continue;  // the same edit
        list.emplace_back(range, text);
        changes[uri].push_back(e);
      }
    ++fixes;
  }
  if (fixes == 0) return nullptr;
  return {{"title", "qlint: fix all (" + std::to_string(fixes) + (fixes == 1 ? " safe fix)" : " safe fixes)")},
          {"kind", "source.fixAll.qlint"},
          {"edit", {{"changes", changes}}}};
}

nlohmann::json hover(const std::vector<const Finding*>& on_file, const Range& position) {
  std::string text;
  std::optional<Range> range;
  for (const Finding* f : on_file) {
    if (!f->range.intersects(position)) continue;
    text += (text.empty() ? "" : "\n\n---\n\n") + f->hover;
    if (!range) range = f->range;
  }
  if (text.empty()) return nullptr;
  return {{"contents", {{"kind", "markdown"}, {"value", text}}}, {"range", range->to_json()}};
}

std::string file_uri(const std::string& absolute_path) {
  auto location = cli::sarif_artifact_location(absolute_path, "");
  return location ? location->at("uri").get<std::string>() : absolute_path;
}

std::optional<std::string> path_of_uri(const std::string& uri) {
  const std::string scheme = "file://";
  if (uri.rfind(scheme, 0) != 0) return std::nullopt;
  std::string rest = uri.substr(scheme.size());
  if (rest.rfind("localhost/", 0) == 0) rest = rest.substr(9);
  if (rest.empty() || rest[0] != '/') return std::nullopt;  // another host's file
  std::string path;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() && std::isxdigit(static_cast<unsigned char>(rest[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(rest[i + 2]))) {
      path += static_cast<char>(std::stoi(rest.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else if (rest[i] == '?' || rest[i] == '#') {
      break;
    } else {
      path += rest[i];
    }
  }
  return fs::path(path).lexically_normal().string();
}

}  // namespace qlint::server
