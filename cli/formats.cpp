#include "cli/formats.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

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

// A fingerprint that survives unrelated edits above the finding: the rule and the finding's
// line text without whitespace (FNV-1a, 64 bit).
std::string line_hash(const std::string& rule, const std::string& line_text) {
  uint64_t h = 1469598103934665603ull;
  for (char c : rule + "\n" + line_text) {
    if (c == ' ' || c == '\t') continue;
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return std::string(buf) + ":1";
}

nlohmann::json rule_descriptor(const rules::Rule& r) {
  std::string help = std::string("What it finds\n") + r.doc.what + "\n\nWhy it breaks\n" + r.doc.why + "\n\nExample\n" +
                     r.doc.example + "\n\nFix\n" + r.doc.fix + "\n\nFix safety\n" + r.doc.fix_safety;
  std::string markdown = std::string("**What it finds.** ") + r.doc.what + "\n\n**Why it breaks.** " + r.doc.why +
                         "\n\n**Example**\n\n```python\n" + r.doc.example + "\n```\n\n**Fix.** " + r.doc.fix +
                         "\n\n**Fix safety.** " + r.doc.fix_safety;
  return {{"id", r.id},
          {"name", r.id},
          {"shortDescription", {{"text", r.summary}}},
          {"fullDescription", {{"text", r.doc.what}}},
          {"help", {{"text", help}, {"markdown", markdown}}},
          {"defaultConfiguration", {{"level", sarif_level(r.severity)}}}};
}

// qlint's columns count bytes (as TorchScript's and Python's positions do); the SARIF log
// declares utf16CodeUnits, as GitHub and editors expect. The line's text converts them; where
// qlint has no text, bytes are what there is.
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

nlohmann::json region(const ir::Model& model, const ir::SourceLoc& loc, const std::string& snippet) {
  nlohmann::json r = {{"startLine", loc.line},
                      {"startColumn", utf16_column(model.source_line(loc.file, loc.line), loc.column)},
                      {"endLine", loc.end_line},
                      {"endColumn", utf16_column(model.source_line(loc.file, loc.end_line), loc.end_column)}};
  if (!snippet.empty()) r["snippet"] = {{"text", snippet}};
  return r;
}

nlohmann::json artifact(const std::string& path) { return {{"uri", ir::display_path(path)}}; }

// A SARIF fix is the Python change `--diff` would show for that fix alone (python_fixes.h).
nlohmann::json sarif_fixes(const ModelReport& report, const Diagnostic& d, PythonFixScope& scope) {
  nlohmann::json fixes = nlohmann::json::array();
  for (const auto& python_fix : python_fixes(report, d, scope)) {
    nlohmann::json changes = nlohmann::json::array();
    for (const auto& [file, file_edits] : python_fix.edits) {
      nlohmann::json replacements = nlohmann::json::array();
      for (const auto& e : file_edits)
        replacements.push_back(
            {{"deletedRegion", region(*report.model, e.region, "")}, {"insertedContent", {{"text", e.text}}}});
      changes.push_back({{"artifactLocation", artifact(file)}, {"replacements", replacements}});
    }
    fixes.push_back({{"description", {{"text", python_fix.fix->description}}}, {"artifactChanges", changes}});
  }
  return fixes;
}

nlohmann::json sarif_result(const ModelReport& report, const Diagnostic& d, int rule_index, PythonFixScope& scope) {
  const std::string* line = d.loc.known() ? report.model->source_line(d.loc.file, d.loc.line) : nullptr;
  nlohmann::json location;
  if (d.loc.known()) {
    location = {
        {"physicalLocation",
         {{"artifactLocation", artifact(d.loc.file)}, {"region", region(*report.model, d.loc, line ? *line : "")}}}};
  } else {
    location = {{"physicalLocation", {{"artifactLocation", artifact(report.model_file)}}}};
  }
  nlohmann::json result = {
      {"ruleId", d.rule},
      {"ruleIndex", rule_index},
      {"level", sarif_level(d.severity)},
      {"message", {{"text", d.message}}},
      {"locations", {location}},
      {"partialFingerprints", {{"primaryLocationLineHash", line_hash(d.rule, line ? *line : d.message)}}}};
  if (auto fixes = sarif_fixes(report, d, scope); !fixes.empty()) result["fixes"] = fixes;
  return result;
}

// The run's one invocation: successful unless a model could not be read; each such model is an
// error notification located at the model file.
nlohmann::json invocation(const std::vector<InputError>& errors) {
  nlohmann::json notifications = nlohmann::json::array();
  for (const auto& e : errors)
    notifications.push_back({{"level", "error"},
                             {"message", {{"text", e.message}}},
                             {"locations", {{{"physicalLocation", {{"artifactLocation", artifact(e.file)}}}}}}});
  return {{"executionSuccessful", errors.empty()}, {"toolExecutionNotifications", notifications}};
}

}  // namespace

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

nlohmann::json render_sarif(const std::vector<ModelReport>& reports, const std::vector<InputError>& errors) {
  nlohmann::json rules = nlohmann::json::array();
  std::map<std::string, int> index;
  for (const auto& r : rules::all_rules()) {
    index[r.id] = static_cast<int>(rules.size());
    rules.push_back(rule_descriptor(r));
  }
  nlohmann::json results = nlohmann::json::array();
  for (const auto& report : reports) {
    PythonFixScope scope;
    for (const auto& d : report.diagnostics) results.push_back(sarif_result(report, d, index[d.rule], scope));
  }
  return {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs",
       {{{"tool",
          {{"driver",
            {{"name", "qlint"}, {"version", QLINT_VERSION}, {"semanticVersion", QLINT_VERSION}, {"rules", rules}}}}},
         {"invocations", {invocation(errors)}},
         {"columnKind", "utf16CodeUnits"},
         {"results", results}}}}};
}

}  // namespace qlint::cli
