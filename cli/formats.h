// Output formats besides text and JSON: concise (one line per finding), GitHub workflow
// annotations, and SARIF 2.1.0 for code scanning (docs/code-scanning.md).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/render.h"
#include "rules/registry.h"

namespace qlint::cli {

std::string render_concise(const std::vector<ModelReport>& reports);
// Models that could not be read become `::error file=MODEL,title=qlint::…` annotations.
std::string render_github(const std::vector<ModelReport>& reports, const std::vector<InputError>& errors);
// Models that could not be read become error notifications of the run's invocation, which then
// reports executionSuccessful: false. Paths are written as sarif_artifact_location says, relative
// to the current working directory (or `cwd`, an absolute POSIX path; empty when unknown).
// `notes` (`qlint cxx`'s notes on models it did not analyse) become warning notifications of the
// invocation, located where the model is run; they leave executionSuccessful true.
nlohmann::json render_sarif(const std::vector<ModelReport>& reports, const std::vector<InputError>& errors,
                            const std::vector<ToolNote>& notes = {});
nlohmann::json render_sarif(const std::vector<ModelReport>& reports, const std::vector<InputError>& errors,
                            const std::string& cwd, const std::vector<ToolNote>& notes = {});

// GitLab's Code Quality report (a JSON array of Code Climate issues): paths relative to `cwd`
// (the repository's root, as GitLab wants them), a model that could not be read as a `blocker`
// on the model file, a finding in generated code on its model file with the place in the text.
nlohmann::json render_gitlab(const std::vector<ModelReport>& reports, const std::vector<InputError>& errors,
                             const std::string& cwd);

// Whether `format` reports models that could not be read in its own output (then the command
// does not also say so on stderr).
bool reports_input_errors(const std::string& format);

// A fingerprint that survives unrelated edits above the finding: the rule and the finding's line
// text without whitespace (SARIF's primaryLocationLineHash, GitLab's fingerprint).
std::string finding_line_hash(const std::string& rule, const std::string& line_text);

// A rule's documentation in Markdown (SARIF's help.markdown, the server's hover).
std::string rule_help_markdown(const rules::Rule& rule);

// qlint's columns count bytes (as TorchScript's and Python's positions do); SARIF logs and
// editors count UTF-16 code units. The line's text converts them; where qlint has no text
// (`line` null), bytes are what there is.
int utf16_column(const std::string* line, int byte_column);

// SARIF paths (docs/code-scanning.md). The base id of relative URIs: the run's
// originalUriBaseIds maps it to the working directory's file URI.
inline constexpr const char* kSarifSourceRoot = "%SRCROOT%";

// Whether `path` names no file: Python's names for code that has no source file, such as
// `<eval_with_key>.7` (FX-generated forward), `<string>` or `<stdin>`: anything starting with
// `<`, or whose last component does (os.path.abspath makes `/cwd/<eval_with_key>.7` of them).
bool is_pseudo_file(const std::string& path);

// The SARIF artifactLocation of a file as qlint recorded it (in the model's debug info, or on
// the command line), for a run in working directory `cwd` (absolute POSIX path; empty when
// unknown). Pure: the file system is not consulted, paths are normalized lexically.
// - A file under cwd (a relative path, or an absolute one below cwd):
//   {"uri": "examples/seed/s1_eq_one.py", "uriBaseId": "%SRCROOT%"}.
// - Any other absolute path (and a relative one whose `..` leaves cwd): {"uri": "file:///abs/x.py"}.
// - Windows paths, from a model exported on Windows: `C:\work\m.py` and `C:/work/m.py` become
//   `file:///C:/work/m.py`, UNC `\\server\share\m.py` becomes `file://server/share/m.py`.
// - Every byte outside RFC 3986's unreserved set and `/` is percent-escaped (UTF-8), so
//   `my model#2.py` is `my%20model%232.py` and `模型.py` is `%E6%A8%A1%E5%9E%8B.py`.
// nullopt for a pseudo-file (is_pseudo_file): it is no artifact.
std::optional<nlohmann::json> sarif_artifact_location(const std::string& path, const std::string& cwd);

// The file URI of directory `dir` (absolute POSIX path), ending in `/`: `file:///work/main/`.
std::string sarif_directory_uri(const std::string& dir);

}  // namespace qlint::cli
