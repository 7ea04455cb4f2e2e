// Output formats for diagnostics: compiler-style text and versioned JSON.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ir/display.h"
#include "ir/ir.h"
#include "rules/diagnostic.h"

namespace qlint::cli {

// A remark about the run, not a finding: a model whose outputs qlint did not analyse (its
// archive is missing, or qlint cannot tell which one it loads). A reader of JSON or SARIF would
// otherwise take the silence about that model for a clean result.
struct ToolNote {
  ir::SourceLoc loc;
  std::string message;
};

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

// `file:line:col: warning: message [rule]`, the source line and a ^~~~ marker under the range.
std::string render_text(const std::vector<ModelReport>& reports, bool color);

// `notes`, when given (`qlint cxx`), become the document's `notes` array.
nlohmann::json render_json(const std::vector<ModelReport>& reports, const std::vector<InputError>& errors,
                           const std::vector<ToolNote>* notes = nullptr);

}  // namespace qlint::cli
