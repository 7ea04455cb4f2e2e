// Expectation files of the end-to-end tests (tests/e2e/*expectations.txt): what `qlint check`
// must report on each example model, one finding a line.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
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

// What two front ends' reports on one model are compared by: (rule, location) per finding, or
// (rule, file:line), since front ends may range an expression differently (FX ranges a stub by
// its whole call; a traced stack gives a line only) while a finding belongs on the same line.
using Findings = std::multiset<std::pair<std::string, std::string>>;
Findings findings_of(const nlohmann::json& doc);
Findings lines_of(const nlohmann::json& doc);
Findings lines_of(const std::vector<Expected>& expected);

// The text of a file ("" when it cannot be read).
std::string read_text(const std::string& path);

// Every example source of `sets` (examples/<set>/*.py) has an export (`exported(set, stem)` names
// where) or says why not: the line `<flag> = False`, or a `build()` (a traced example). An export
// that stops working would otherwise shrink a comparison without anyone noticing.
void expect_every_example_exported_or_exempt(
    const std::vector<std::string>& sets, const std::string& flag,
    const std::function<std::string(const std::string& set, const std::string& stem)>& exported);

// `qlint check --format json` on an example model, with the toolchain example's stub class so
// that its findings are compared too.
nlohmann::json check_example_json(const std::string& model);

}  // namespace qlint::testing
