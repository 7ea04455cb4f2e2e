// qlint's findings in the Language Server Protocol's terms: a diagnostic on the Python source
// range the finding maps to, the code actions that apply its fixes' Python edits (the same
// edits as SARIF `fixes`), and the hover text that explains it. Pure: no I/O besides reading the
// Python sources the edits change (as SARIF output does).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/render.h"

namespace qlint::server {

// An LSP range: zero-based lines, UTF-16 columns, the end exclusive.
struct Range {
  int start_line = 0, start_character = 0, end_line = 0, end_character = 0;

  nlohmann::json to_json() const;
  static Range from_json(const nlohmann::json& range);  // throws nlohmann::json::exception
  bool intersects(const Range& other) const;            // touching counts: a cursor at either end
  bool operator==(const Range& other) const;
};

// One finding as the server keeps it, on the file it is shown on.
struct Finding {
  std::string model;  // the model file (absolute) whose check found it
  std::string rule;   // its rule id; "" for a model that could not be read
  std::string path;   // the Python source file (absolute), or the model file when the finding has no source
  Range range;
  nlohmann::json diagnostic;            // an LSP Diagnostic
  std::vector<nlohmann::json> actions;  // LSP CodeActions, each with a WorkspaceEdit
  std::string hover;                    // Markdown
};

struct FindingOptions {
  std::string root;       // where relative source paths are resolved (the workspace folder)
  std::string docs_base;  // the rule pages' base URI (ending in `/`; `<id>.md` is appended); "" for none
};

// The findings of one checked model.
std::vector<Finding> findings_of(const cli::ModelReport& report, const FindingOptions& options);

// A model that could not be read or checked: one error on the model file, first line.
Finding load_failure(const std::string& model_file, const std::string& message);

// The code actions of the findings on `path` whose range meets `range`, each naming the diagnostic it fixes.
nlohmann::json code_actions(const std::vector<const Finding*>& on_file, const Range& range);

// "Fix all" (`source.fixAll.qlint`): the preferred (safe) fix of every finding on the file, as
// one WorkspaceEdit; a fix whose edits overlap an earlier one's differently waits for the next
// round (after the re-export). Null when there is no safe fix.
nlohmann::json fix_all_action(const std::vector<const Finding*>& on_file);

// "Ignore `<rule>` in this file" for `f` (cli/server/config_edits.h), made from the configuration's
// text as it is now: `config_file` is the one its model's check reads ("" for none), then
// `new_config` the .qlint.toml to create ("" not to). Null when no edit can be made safely.
nlohmann::json ignore_in_file_action(const Finding& f, const std::string& config_file, const std::string& new_config);

// The hover of the findings on `path` under `position` (a zero-width range), or null.
nlohmann::json hover(const std::vector<const Finding*>& on_file, const Range& position);

// file:// URIs for absolute POSIX paths, percent-escaped as SARIF's (cli/formats.h), and back.
std::string file_uri(const std::string& absolute_path);
std::optional<std::string> path_of_uri(const std::string& uri);

}  // namespace qlint::server
