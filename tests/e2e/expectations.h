// Expectation files of the end-to-end tests (tests/e2e/*expectations.txt): what `qlint check`
// must report on each example model, one finding a line.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace qlint::testing {

struct Expected {
  std::string rule;
  std::string location;  // file:line:col-end_line:end_col, or "(none)"
};

// Lines `model rule location` by model ("set/stem"); `#` starts a comment line, and a model
// listed with rule `-` is expected to give no findings (an empty list).
std::map<std::string, std::vector<Expected>> read_expectations(const std::string& file_name);

// A JSON diagnostic's location as the files write it; "(none)" for a finding the model has
// no source location for (a call a trace dropped).
std::string location_of(const nlohmann::json& diagnostic);

}  // namespace qlint::testing
