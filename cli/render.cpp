#include "cli/render.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "cli/python_fixes.h"
#include "ir/input_file.h"
#include "ir/source_text.h"
#include "ir/spelling.h"

namespace qlint::cli {

namespace {

namespace fs = std::filesystem;

struct Style {
  bool on;
  std::string bold() const { return on ? "\033[1m" : ""; }
  std::string severity(Severity s) const {
    if (!on) return "";
    return s == Severity::Error ? "\033[1;31m" : s == Severity::Warning ? "\033[1;35m" : "\033[1;36m";
  }
  std::string marker() const { return on ? "\033[1;32m" : ""; }
  std::string reset() const { return on ? "\033[0m" : ""; }
};

// The source line from the debug info (what the model was compiled from), else from disk: only
// a regular text file under the working directory or beside the model (ir::read_source_line).
std::string source_line(const ir::Model& model, const ir::SourceLoc& loc) {
  if (const std::string* text = model.source_line(loc.file, loc.line)) return *text;
  return ir::read_source_line(loc.file, loc.line, model.file).value_or("");
}

// The line as shown: at most limits().snippet_chars characters, control characters and
// invalid UTF-8 escaped.
std::string shown_line(const std::string& text) {
  return ir::printable(text, static_cast<size_t>(std::min<uint64_t>(ir::limits().snippet_chars, 1u << 20)));
}

// Carets under the range, in 64-bit arithmetic and never past the shown line (a column near
// 2^31 in a crafted export is no reason to print gigabytes).
std::string marker_line(const std::string& text, const ir::SourceLoc& loc) {
  const int64_t width = static_cast<int64_t>(text.size());
  int64_t start = std::min<int64_t>(std::max<int64_t>(loc.column, 1) - 1, width);
  int64_t end = loc.end_line == loc.line ? static_cast<int64_t>(loc.end_column) - 1 : width;
  end = std::min(std::max(end, start + 1), std::max(width, start + 1));
  std::string out;
  for (int64_t i = 0; i < start; ++i) out += text[static_cast<size_t>(i)] == '\t' ? '\t' : ' ';
  out += '^';
  out += std::string(static_cast<size_t>(end - start - 1), '~');
  return out;
}

std::string where_in_model(const Diagnostic& d) {
  std::string where = "in " + (d.function ? d.function->name : std::string("?"));
  if (d.node) where += " (" + d.node->kind + ")";
  return where;
}

// Where a finding without a Python line is, and why it has none. An ONNX model names its nodes;
// the hint to export with verbose=True is said once per model (`hinted`).
std::string unlocated(const Diagnostic& d, bool& hinted) {
  const ir::Attr* onnx_node = d.node ? d.node->attr("onnx_node") : nullptr;
  // A node of library code (torchvision's batched_nms) has a location, not one of the user's: said
  // as such (public round 21: "no source location" here, the library line in the fix's note).
  if (onnx_node == nullptr || onnx_node->kind != ir::Attr::Kind::Str)
    return where_in_model(d) + (d.node != nullptr && d.node->loc.known()
                                    ? "; its only source location is in library code, " +
                                          ir::display_location(d.node->loc) + ", not in the model's own"
                                    : "; the archive has no source location for it");
  std::string note = "at ONNX node `" + ir::printable(onnx_node->s, 200) + "`, which has no Python stack";
  if (!hinted) note += " (export with torch.onnx.export(..., verbose=True) for Python lines)";
  hinted = true;
  return note;
}

void render_one(std::ostream& out, const ModelReport& report, const Diagnostic& d, const Style& s, bool& hinted) {
  std::string location = d.loc.known() ? ir::display_location(d.loc) : ir::display_path(report.model_file);
  out << s.bold() << location << ": " << s.reset() << s.severity(d.severity) << severity_name(d.severity) << ": "
      << s.reset() << s.bold() << d.message << " [" << d.rule << "]" << s.reset() << "\n";
  if (d.loc.known()) {
    std::string text = shown_line(source_line(*report.model, d.loc));
    if (!text.empty()) {
      std::string gutter = std::to_string(d.loc.line);
      out << " " << gutter << " | " << text << "\n";
      out << " " << std::string(gutter.size(), ' ') << " | " << s.marker() << marker_line(text, d.loc) << s.reset()
          << "\n";
    }
  } else {
    out << "  note: " << unlocated(d, hinted) << "\n";
  }
  for (const auto& note : d.notes) out << "  note: " << note << "\n";
}

nlohmann::json optional_int(int v, bool known) { return known ? nlohmann::json(v) : nlohmann::json(); }

// Each fix whose Python change qlint can show, as edits with the same byte columns as the
// diagnostic's own location.
nlohmann::json suggestions_json(const ModelReport& report, const Diagnostic& d, PythonFixScope& scope) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& python_fix : python_fixes(report, d, scope)) {
    nlohmann::json edits = nlohmann::json::array();
    for (const auto& [file, file_edits] : python_fix.edits)
      for (const auto& e : file_edits)
        edits.push_back({{"file", ir::display_path(file)},
                         {"line", e.region.line},
                         {"column", e.region.column},
                         {"end_line", e.region.end_line},
                         {"end_column", e.region.end_column},
                         {"text", e.text}});
    out.push_back({{"description", python_fix.fix->description},
                   {"applicability", applicability_name(python_fix.fix->applicability)},
                   {"edits", edits}});
  }
  return out;
}

// The module whose code the finding is in: the one the node records (an FX or ONNX node, whose
// graph is one function), else the module of the function holding it.
std::string module_of(const ModelReport& report, const Diagnostic& d) {
  std::string of_function = d.function ? d.function->module_path : "";
  if (d.node == nullptr || report.model == nullptr) return of_function;
  return ir::python_self_module(*report.model, *d.node).value_or(of_function);
}

nlohmann::json diagnostic_json(const ModelReport& report, const Diagnostic& d, PythonFixScope& scope) {
  bool known = d.loc.known();
  return {
      {"rule", d.rule},
      {"severity", severity_name(d.severity)},
      {"message", d.message},
      {"notes", d.notes},
      {"file", known ? nlohmann::json(ir::display_path(d.loc.file)) : nlohmann::json()},
      {"line", optional_int(d.loc.line, known)},
      {"column", optional_int(d.loc.column, known)},
      {"end_line", optional_int(d.loc.end_line, known)},
      {"end_column", optional_int(d.loc.end_column, known)},
      {"source_line", known ? nlohmann::json(shown_line(source_line(*report.model, d.loc))) : nlohmann::json()},
      {"model", ir::display_path(report.model_file)},
      {"method", d.function ? d.function->method : ""},
      {"module", module_of(report, d)},
      {"node", d.node ? ir::node_spelling(*report.model, *d.node) : ""},
      {"suggestions", suggestions_json(report, d, scope)},
  };
}

}  // namespace

std::string render_text(const std::vector<ModelReport>& reports, bool color) {
  std::ostringstream out;
  Style style{color};
  for (const auto& report : reports) {
    bool hinted = false;
    for (const auto& d : report.diagnostics) render_one(out, report, d, style, hinted);
  }
  return out.str();
}

nlohmann::json render_json(const std::vector<ModelReport>& reports, const std::vector<InputError>& errors,
                           const std::vector<ToolNote>* notes) {
  nlohmann::json diagnostics = nlohmann::json::array();
  nlohmann::json models = nlohmann::json::array();
  for (const auto& report : reports) {
    models.push_back(ir::display_path(report.model_file));
    PythonFixScope scope;
    for (const auto& d : report.diagnostics) diagnostics.push_back(diagnostic_json(report, d, scope));
  }
  nlohmann::json fixes = nlohmann::json::array();
  for (const auto& report : reports)
    if (!report.fix.is_null()) fixes.push_back(report.fix);
  nlohmann::json error_list = nlohmann::json::array();
  for (const auto& e : errors) error_list.push_back({{"model", ir::display_path(e.file)}, {"message", e.message}});
  nlohmann::json doc = {{"version", ir::kJsonSchemaVersion},
                        {"tool", {{"name", "qlint"}, {"version", QLINT_VERSION}}},
                        {"models", models},
                        {"diagnostics", diagnostics},
                        {"errors", error_list}};
  if (!fixes.empty()) doc["fixes"] = fixes;
  if (notes != nullptr) {
    doc["notes"] = nlohmann::json::array();
    for (const ToolNote& n : *notes)
      doc["notes"].push_back({{"file", n.loc.known() ? nlohmann::json(ir::display_path(n.loc.file)) : nlohmann::json()},
                              {"line", n.loc.known() ? nlohmann::json(n.loc.line) : nlohmann::json()},
                              {"column", n.loc.known() ? nlohmann::json(n.loc.column) : nlohmann::json()},
                              {"message", n.message}});
  }
  return doc;
}

}  // namespace qlint::cli
