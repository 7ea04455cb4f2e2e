// Output formats besides text and JSON: concise (one line per finding), GitHub workflow
// annotations, and SARIF 2.1.0 for code scanning (docs/sarif.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/render.h"

namespace qlint::cli {

std::string render_concise(const std::vector<ModelReport>& reports);
std::string render_github(const std::vector<ModelReport>& reports);
nlohmann::json render_sarif(const std::vector<ModelReport>& reports);

}  // namespace qlint::cli
