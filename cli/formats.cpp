#include "cli/formats.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string_view>

#include "cli/python_fixes.h"
#include "rules/registry.h"
#include "rules/support.h"

namespace qlint::cli {

namespace {

std::string where(const ModelReport& report, const Diagnostic& d) {
  return d.loc.known() ? ir::display_location(d.loc) : ir::display_path(report.model_file);
}

// GitHub's workflow commands: `%`, CR and LF are escaped in data; properties also escape
// `:` and `,`.
std::string github_escape(const std::string& s, bool property) {
  std::string out;
  for (char c : s) {
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else if (property && c == ':')
      out += "%3A";
    else if (property && c == ',')
      out += "%2C";
    else
      out += c;
  }
  return out;
}

const char* sarif_level(Severity s) {
  return s == Severity::Error ? "error" : s == Severity::Warning ? "warning" : "note";
}

nlohmann::json rule_descriptor(const rules::Rule& r) {
  std::string help = std::string("What it finds\n") + r.doc.what + "\n\nWhy it breaks\n" + r.doc.why + "\n\nExample\n" +
                     r.doc.example + "\n\nFix\n" + r.doc.fix + "\n\nFix safety\n" + r.doc.fix_safety;
  return {{"id", r.id},
          {"name", r.id},
          {"shortDescription", {{"text", r.summary}}},
          {"fullDescription", {{"text", r.doc.what}}},
          {"help", {{"text", help}, {"markdown", rule_help_markdown(r)}}},
          {"defaultConfiguration", {{"level", sarif_level(r.severity)}}}};
}

// The same rule as a C++ run describes it (rules::CxxRuleDoc).
nlohmann::json cxx_rule_descriptor(const rules::Rule& r) {
  const char* why = *r.cxx.why != '\0' ? r.cxx.why : r.doc.why;
  std::string help = std::string("What it finds\n") + r.cxx.what + "\n\nWhy it breaks\n" + why + "\n\nExample\n" +
                     r.cxx.example + "\n\nFix\n" + r.cxx.fix + "\n\nFix safety\n" + r.cxx.fix_safety;
  std::string markdown = std::string("**What it finds.** ") + r.cxx.what + "\n\n**Why it breaks.** " + why +
                         "\n\n**Example**\n\n```cpp\n" + r.cxx.example + "\n```\n\n**Fix.** " + r.cxx.fix +
                         "\n\n**Fix safety.** " + r.cxx.fix_safety;
  return {{"id", r.id},
          {"name", r.id},
          {"shortDescription", {{"text", r.cxx.summary}}},
          {"fullDescription", {{"text", r.cxx.what}}},
          {"help", {{"text", help}, {"markdown", markdown}}},
          {"defaultConfiguration", {{"level", sarif_level(r.severity)}}}};
}

// A run of `qlint cxx`: every report is C++ code.
bool cxx_run(const std::vector<ModelReport>& reports) {
  return !reports.empty() && std::all_of(reports.begin(), reports.end(), [](const ModelReport& r) {
    return r.model && r.model->language == ir::Language::Cxx;
  });
}

nlohmann::json region(const ir::Model& model, const ir::SourceLoc& loc, const std::string& snippet) {
  nlohmann::json r = {{"startLine", loc.line},
                      {"startColumn", utf16_column(model.source_line(loc.file, loc.line), loc.column)},
                      {"endLine", loc.end_line},
                      {"endColumn", utf16_column(model.source_line(loc.file, loc.end_line), loc.end_column)}};
  if (!snippet.empty()) r["snippet"] = {{"text", snippet}};
  return r;
}

// RFC 3986's unreserved characters; every other byte of a path segment is percent-escaped.
bool unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

std::string percent_escaped(std::string_view text) {
  static const char hex[] = "0123456789ABCDEF";
  std::string out;
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    if (unreserved(c)) {
      out += ch;
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// Segments joined by `/`, each percent-escaped.
std::string escaped_path(const std::vector<std::string>& segments) {
  std::string out;
  for (size_t i = 0; i < segments.size(); ++i) out += (i ? "/" : "") + percent_escaped(segments[i]);
  return out;
}

// The segments of a `/`-separated path, lexically normalized: empty and `.` segments dropped,
// `..` taking the previous segment away. A `..` with nothing before it is kept when `relative`
// (it leaves the base) and dropped otherwise (`/..` is `/`).
std::vector<std::string> normalized_segments(std::string_view path, bool relative,
                                             std::vector<std::string> segments = {}) {
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = std::min(path.find('/', start), path.size());
    std::string_view segment = path.substr(start, end - start);
    if (segment == "..") {
      if (!segments.empty() && segments.back() != "..")
        segments.pop_back();
      else if (relative)
        segments.emplace_back(segment);
    } else if (!segment.empty() && segment != ".") {
      segments.emplace_back(segment);
    }
    start = end + 1;
  }
  return segments;
}

std::string with_slashes(std::string path) {
  std::replace(path.begin(), path.end(), '\\', '/');
  return path;
}

bool is_drive_path(std::string_view p) {
  return p.size() >= 3 && ((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':' &&
         (p[2] == '\\' || p[2] == '/');
}

// A Windows path (drive or UNC) as a file URI, or nullopt when `path` is none. A path starting
// with `//` is POSIX's (Python keeps two leading slashes there); UNC paths start with `\\`.
std::optional<std::string> windows_file_uri(std::string path) {
  // Win32 file namespace prefixes: \\?\C:\x and \\?\UNC\server\share\x.
  if (path.rfind("\\\\?\\UNC\\", 0) == 0)
    path = "\\\\" + path.substr(8);
  else if (path.rfind("\\\\?\\", 0) == 0 && is_drive_path(std::string_view(path).substr(4)))
    path = path.substr(4);
  if (is_drive_path(path)) {
    // The drive's colon stays as it is: file:///C:/x (RFC 8089, appendix E.2).
    return "file:///" + path.substr(0, 2) + "/" +
           escaped_path(normalized_segments(with_slashes(path.substr(3)), false));
  }
  if (path.rfind("\\\\", 0) == 0) {
    std::string rest = with_slashes(path.substr(2));
    size_t slash = std::min(rest.find('/'), rest.size());
    std::string host = rest.substr(0, slash);
    auto segments = normalized_segments(std::string_view(rest).substr(slash), false);
    return "file://" + percent_escaped(host) + "/" + escaped_path(segments);
  }
  return std::nullopt;
}

nlohmann::json file_uri(const std::vector<std::string>& absolute_segments) {
  return {{"uri", "file:///" + escaped_path(absolute_segments)}};
}

// Where qlint has no file to point at, the location is the model file: for a finding without
// debug info, as before, and for one in a pseudo-file, which SARIF then names as a logical
// location. An artifactLocation's `uri` must be a URI reference to an artifact, and
// `<eval_with_key>.7` is none: escaped to `%3Ceval_with_key%3E.7` under %SRCROOT% it would send
// viewers and code scanning to a file that does not exist. A logicalLocation (SARIF 2.1.0
// §3.33) names "a programmatic construct ... without regard to the artifact in which it
// occurs", which is what the generated code is: a Python module with no file (kind "module").
// The location's message keeps the line and column there, for people to read.
nlohmann::json fallback_location(const ModelReport& report, const ir::SourceLoc& loc, const std::string& cwd) {
  nlohmann::json location = nlohmann::json::object();
  if (auto model = sarif_artifact_location(report.model_file, cwd))
    location["physicalLocation"] = {{"artifactLocation", *model}};
  if (loc.known() && is_pseudo_file(loc.file)) {
    std::string name = with_slashes(loc.file);
    if (name[0] != '<') name = name.substr(name.rfind('/') + 1);
    location["logicalLocations"] = nlohmann::json::array({{{"name", name}, {"kind", "module"}}});
    location["message"] = {
        {"text", name + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column) + " (no source file)"}};
  }
  return location;
}

// A SARIF fix is the Python change `--diff` would show for that fix alone (python_fixes.h). A
// fix that would edit a pseudo-file is left out: an artifactChange needs an artifactLocation.
nlohmann::json sarif_fixes(const ModelReport& report, const Diagnostic& d, PythonFixScope& scope,
                           const std::string& cwd) {
  nlohmann::json fixes = nlohmann::json::array();
  for (const auto& python_fix : python_fixes(report, d, scope)) {
    nlohmann::json changes = nlohmann::json::array();
    bool complete = true;
    for (const auto& [file, file_edits] : python_fix.edits) {
      auto artifact = sarif_artifact_location(file, cwd);
      if (!artifact) {
        complete = false;
        break;
      }
      nlohmann::json replacements = nlohmann::json::array();
      for (const auto& e : file_edits)
        replacements.push_back(
            {{"deletedRegion", region(*report.model, e.region, "")}, {"insertedContent", {{"text", e.text}}}});
      changes.push_back({{"artifactLocation", *artifact}, {"replacements", replacements}});
    }
    if (complete)
      fixes.push_back({{"description", {{"text", python_fix.fix->description}}}, {"artifactChanges", changes}});
  }
  return fixes;
}

nlohmann::json sarif_result(const ModelReport& report, const Diagnostic& d, int rule_index, PythonFixScope& scope,
                            const std::string& cwd) {
  const std::string* line = d.loc.known() ? report.model->source_line(d.loc.file, d.loc.line) : nullptr;
  std::optional<nlohmann::json> artifact;
  if (d.loc.known()) artifact = sarif_artifact_location(d.loc.file, cwd);
  nlohmann::json location = artifact ? nlohmann::json{{"physicalLocation",
                                                       {{"artifactLocation", *artifact},
                                                        {"region", region(*report.model, d.loc, line ? *line : "")}}}}
                                     : fallback_location(report, d.loc, cwd);
  nlohmann::json result = {
      {"ruleId", d.rule},
      {"ruleIndex", rule_index},
      {"level", sarif_level(d.severity)},
      {"message", {{"text", d.message}}},
      {"locations", location.empty() ? nlohmann::json::array() : nlohmann::json::array({location})},
      {"partialFingerprints", {{"primaryLocationLineHash", finding_line_hash(d.rule, line ? *line : d.message)}}}};
  if (auto fixes = sarif_fixes(report, d, scope, cwd); !fixes.empty()) result["fixes"] = fixes;
  return result;
}

// The run's one invocation: successful unless a model could not be read; each such model is an
// error notification located at the model file.
nlohmann::json invocation(const std::vector<InputError>& errors, const std::vector<ToolNote>& notes,
                          const std::string& cwd) {
  nlohmann::json notifications = nlohmann::json::array();
  for (const auto& e : errors) {
    nlohmann::json notification = {{"level", "error"}, {"message", {{"text", e.message}}}};
    if (auto artifact = sarif_artifact_location(e.file, cwd))
      notification["locations"] = {{{"physicalLocation", {{"artifactLocation", *artifact}}}}};
    notifications.push_back(notification);
  }
  // A model left unanalysed is a warning: its silence in `results` is not a clean result.
  for (const auto& n : notes) {
    nlohmann::json notification = {{"level", "warning"}, {"message", {{"text", n.message}}}};
    if (auto artifact = n.loc.known() ? sarif_artifact_location(n.loc.file, cwd) : std::nullopt)
      notification["locations"] = {{{"physicalLocation",
                                     {{"artifactLocation", *artifact},
                                      {"region", {{"startLine", n.loc.line}, {"startColumn", n.loc.column}}}}}}};
    notifications.push_back(notification);
  }
  return {{"executionSuccessful", errors.empty()}, {"toolExecutionNotifications", notifications}};
}

}  // namespace

std::string rule_help_markdown(const rules::Rule& r) {
  return std::string("**What it finds.** ") + r.doc.what + "\n\n**Why it breaks.** " + r.doc.why +
         "\n\n**Example**\n\n```python\n" + r.doc.example + "\n```\n\n**Fix.** " + r.doc.fix + "\n\n**Fix safety.** " +
         r.doc.fix_safety;
}

int utf16_column(const std::string* line, int byte_column) {
  if (line == nullptr || byte_column < 1) return byte_column;
  int units = 0;
  size_t end = std::min(line->size(), static_cast<size_t>(byte_column - 1));
  for (size_t i = 0; i < end; ++i) {
    auto c = static_cast<unsigned char>((*line)[i]);
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte: counted with its lead byte
    units += c >= 0xF0 ? 2 : 1;        // 4-byte sequences are surrogate pairs in UTF-16
  }
  return units + 1 + (byte_column - 1 - static_cast<int>(end));  // past the text: bytes as given
}

bool is_pseudo_file(const std::string& path) {
  if (path.empty()) return false;
  std::string p = with_slashes(path);
  return p[0] == '<' || p.compare(p.rfind('/') + 1, 1, "<") == 0;
}

std::optional<nlohmann::json> sarif_artifact_location(const std::string& path, const std::string& cwd) {
  if (path.empty() || is_pseudo_file(path)) return std::nullopt;
  if (auto uri = windows_file_uri(path)) return nlohmann::json{{"uri", *uri}};
  bool absolute = path[0] == '/';
  if (cwd.empty()) {
    if (absolute) return file_uri(normalized_segments(path, false));
    return nlohmann::json{{"uri", escaped_path(normalized_segments(path, true))}, {"uriBaseId", kSarifSourceRoot}};
  }
  auto base = normalized_segments(cwd, false);
  auto segments = absolute ? normalized_segments(path, false) : normalized_segments(path, false, base);
  if (segments.size() > base.size() && std::equal(base.begin(), base.end(), segments.begin()))
    return nlohmann::json{{"uri", escaped_path({segments.begin() + base.size(), segments.end()})},
                          {"uriBaseId", kSarifSourceRoot}};
  return file_uri(segments);
}

std::string sarif_directory_uri(const std::string& dir) {
  auto segments = normalized_segments(dir, false);
  return "file:///" + escaped_path(segments) + (segments.empty() ? "" : "/");
}

std::string render_concise(const std::vector<ModelReport>& reports) {
  std::ostringstream out;
  for (const auto& report : reports)
    for (const auto& d : report.diagnostics)
      out << where(report, d) << ": " << severity_name(d.severity) << ": " << d.message << " [" << d.rule << "]\n";
  return out.str();
}

std::string render_github(const std::vector<ModelReport>& reports, const std::vector<InputError>& errors) {
  std::ostringstream out;
  for (const auto& e : errors)
    out << "::error file=" << github_escape(ir::display_path(e.file), true)
        << ",title=qlint::" << github_escape(e.message, false) << "\n";
  for (const auto& report : reports) {
    for (const auto& d : report.diagnostics) {
      out << "::" << (d.severity == Severity::Error ? "error" : d.severity == Severity::Warning ? "warning" : "notice");
      if (d.loc.known()) {
        out << " file=" << github_escape(ir::display_path(d.loc.file), true) << ",line=" << d.loc.line
            << ",col=" << d.loc.column << ",endLine=" << d.loc.end_line << ",endColumn=" << d.loc.end_column << ",";
      } else {
        out << " file=" << github_escape(ir::display_path(report.model_file), true) << ",";
      }
      out << "title=" << github_escape(d.rule, true) << "::" << github_escape(d.message, false) << "\n";
    }
  }
  return out.str();
}

std::string finding_line_hash(const std::string& rule, const std::string& line_text) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a, 64 bit
  for (char c : rule + "\n" + line_text) {
    if (c == ' ' || c == '\t') continue;
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return std::string(buf) + ":1";
}

bool reports_input_errors(const std::string& format) {
  return format == "json" || format == "github" || format == "gitlab";
}

nlohmann::json render_sarif(const std::vector<ModelReport>& reports, const std::vector<InputError>& errors,
                            const std::vector<ToolNote>& notes) {
  std::error_code ec;
  std::string cwd = std::filesystem::current_path(ec).string();
  return render_sarif(reports, errors, ec ? std::string() : cwd, notes);
}

nlohmann::json render_sarif(const std::vector<ModelReport>& reports, const std::vector<InputError>& errors,
                            const std::string& cwd, const std::vector<ToolNote>& notes) {
  nlohmann::json rules = nlohmann::json::array();
  std::map<std::string, int> index;
  // A C++ run lists the rules that can fire on C++ code, in C++ words.
  const bool cxx = cxx_run(reports);
  for (const auto& r : rules::all_rules()) {
    if (cxx && *r.cxx.summary == '\0') continue;
    index[r.id] = static_cast<int>(rules.size());
    rules.push_back(cxx ? cxx_rule_descriptor(r) : rule_descriptor(r));
  }
  nlohmann::json results = nlohmann::json::array();
  for (const auto& report : reports) {
    PythonFixScope scope;
    for (const auto& d : report.diagnostics) {
      if (const rules::Rule* r = rules::find_rule(d.rule); r != nullptr && !index.count(d.rule)) {
        index[d.rule] = static_cast<int>(rules.size());  // a rule without C++ words, should it fire
        rules.push_back(rule_descriptor(*r));
      }
      results.push_back(sarif_result(report, d, index[d.rule], scope, cwd));
    }
  }
  nlohmann::json run = {
      {"tool",
       {{"driver",
         {{"name", "qlint"}, {"version", QLINT_VERSION}, {"semanticVersion", QLINT_VERSION}, {"rules", rules}}}}},
      {"invocations", {invocation(errors, notes, cwd)}},
      {"columnKind", "utf16CodeUnits"},
      {"results", results}};
  // Relative URIs are relative to %SRCROOT%, the working directory qlint ran in (SARIF
  // 2.1.0 §3.14.14: an absolute URI ending in a slash). Unknown, it is left to the viewer.
  if (!cwd.empty()) run["originalUriBaseIds"] = {{kSarifSourceRoot, {{"uri", sarif_directory_uri(cwd)}}}};
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"}, {"version", "2.1.0"}, {"runs", {run}}};
}

}  // namespace qlint::cli
