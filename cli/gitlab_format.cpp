// GitLab's Code Quality report (docs/code-scanning.md#gitlab): the subset of the Code Climate
// issue format GitLab reads from `artifacts: reports: codequality`, shown in merge requests.
// https://docs.gitlab.com/ee/ci/testing/code_quality.html#implement-a-custom-tool
#include <filesystem>
#include <map>

#include "cli/formats.h"

namespace qlint::cli {

namespace {

namespace fs = std::filesystem;

const char* gitlab_severity(Severity s) {
  return s == Severity::Error ? "critical" : s == Severity::Warning ? "major" : "info";
}

// GitLab links a path relative to the repository's root (the job's working directory).
std::string repository_path(const std::string& path, const std::string& cwd) {
  fs::path normal = fs::path(path).lexically_normal();
  if (cwd.empty() || normal.is_relative()) return normal.string();
  fs::path relative = normal.lexically_relative(fs::path(cwd).lexically_normal());
  if (relative.empty() || *relative.begin() == "..") return normal.string();
  return relative.string();
}

// Fingerprints must be unique in a report: the n-th identical finding ends in `:n`, not `:1`.
class Fingerprints {
 public:
  std::string of(const std::string& path, const std::string& rule, const std::string& line_text) {
    std::string base = finding_line_hash(rule, path + "\n" + line_text);
    int n = ++seen_[base];
    return n == 1 ? base : base.substr(0, base.rfind(':')) + ":" + std::to_string(n);
  }

 private:
  std::map<std::string, int> seen_;
};

nlohmann::json issue(const std::string& rule, const std::string& message, const char* severity, const std::string& path,
                     int line, const std::string& fingerprint) {
  return {{"type", "issue"},
          {"check_name", rule},
          {"description", message},
          {"categories", {"Bug Risk"}},
          {"severity", severity},
          {"fingerprint", fingerprint},
          {"location", {{"path", path}, {"lines", {{"begin", line}}}}}};
}

}  // namespace

nlohmann::json render_gitlab(const std::vector<ModelReport>& reports, const std::vector<InputError>& errors,
                             const std::string& cwd) {
  nlohmann::json issues = nlohmann::json::array();
  Fingerprints fingerprints;
  // A model qlint could not read is a blocker on the model file: the check did not happen.
  for (const auto& e : errors) {
    const std::string path = repository_path(e.file, cwd);
    issues.push_back(issue("qlint", e.message, "blocker", path, 1, fingerprints.of(path, "qlint", e.message)));
  }
  for (const auto& report : reports)
    for (const auto& d : report.diagnostics) {
      const bool located = d.loc.known() && !is_pseudo_file(d.loc.file);
      const std::string path = repository_path(located ? d.loc.file : report.model_file, cwd);
      const std::string* line = located ? report.model->source_line(d.loc.file, d.loc.line) : nullptr;
      const std::string message =
          located || !d.loc.known() ? d.message : d.message + " (" + ir::display_location(d.loc) + ")";
      issues.push_back(issue(d.rule, message, gitlab_severity(d.severity), path, located ? d.loc.line : 1,
                             fingerprints.of(path, d.rule, line ? *line : d.message)));
    }
  return issues;
}

}  // namespace qlint::cli
