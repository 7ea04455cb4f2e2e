// "Ignore `<rule>` in this file": the rule added to the `per-file-ignores` of the configuration a
// model's check reads (docs/configuration.md), as an LSP WorkspaceEdit of that file's text, so the
// user sees (and can undo) exactly what changes. Only edits qlint can make without disturbing the
// rest of the file are offered, and each is checked by parsing the edited text as qlint will.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace qlint::server {

struct IgnoreInFile {
  std::string config_file;  // the configuration the check read (a .qlint.toml or pyproject.toml), or "" for none
  std::string new_config;   // with none: the .qlint.toml to create (the workspace folder's), or "" not to
  std::string path;         // the file the finding is on (absolute)
  std::string rule;
};

// The WorkspaceEdit, or nullopt when it cannot be made safely: the file cannot be read or parsed,
// the table is written inline or with dotted keys, the file's entry is not a one-line array, the
// rule is listed already, or the file is not under the configuration's directory. With no configuration, a new
// .qlint.toml (created only if it still does not exist when the edit is applied).
std::optional<nlohmann::json> ignore_in_file_edit(const IgnoreInFile& request);

// The edited text of `text` (a configuration named `config_file`), for the tests and the check
// above; nullopt as for ignore_in_file_edit.
std::optional<std::string> with_file_ignored(const std::string& text, const std::string& config_file,
                                             const std::string& path, const std::string& rule);

}  // namespace qlint::server
