// Output formats besides text and JSON: concise (one line per finding), GitHub workflow
// annotations, and SARIF 2.1.0 for code scanning (docs/code-scanning.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/render.h"

namespace qlint::cli {

std::string render_concise(const std::vector<ModelReport>& reports);
// Models that could not be read become `::error file=MODEL,title=qlint::…` annotations.
std::string render_github(const std::vector<ModelReport>& reports, const std::vector<InputError>& errors);
// Models that could not be read become error notifications of the run's invocation, which then
// reports executionSuccessful: false.
nlohmann::json render_sarif(const std::vector<ModelReport>& reports, const std::vector<InputError>& errors);

}  // namespace qlint::cli
