// Output formats for diagnostics: compiler-style text and versioned JSON.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "rules/diagnostic.h"

namespace qlint::cli {

// Bumped on any incompatible change; the schema is in docs/json-output.md.
constexpr int kJsonSchemaVersion = 1;

struct ModelReport {
  std::string model_file;  // as given on the command line
  std::shared_ptr<const ir::Model> model;
  std::vector<Diagnostic> diagnostics;
  nlohmann::json fix;  // the --fix / --diff summary, null otherwise
};

struct InputError {
  std::string file;
  std::string message;
};

// A path as the user would like to read it: relative to the working directory when the file
// lies under it (TorchScript records absolute paths), unchanged otherwise.
std::string display_path(const std::string& path);

// "file:line:col" for a known location (the path as display_path shows it), else
// "(no source location)".
std::string display_location(const ir::SourceLoc& loc);

// `file:line:col: warning: message [rule]`, the source line and a ^~~~ marker under the range.
std::string render_text(const std::vector<ModelReport>& reports, bool color);

nlohmann::json render_json(const std::vector<ModelReport>& reports,
                           const std::vector<InputError>& errors);

}  // namespace qlint::cli
