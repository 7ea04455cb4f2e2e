// Rendering attribution (which quant point causes a divergence) and the per-quant-point
// sensitivity table: in `qlint sim`'s text and JSON, and as the notes of `check --input`'s
// findings.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "sim/simulator.h"

namespace qlint::sim {

// Where the model quantizes at a quant point (QuantPointResult::sites), the known ones:
// "model.py:12:9, model.py:14:9", and as JSON [{file, line, column}].
std::string point_sites_text(const QuantPointResult& p);
nlohmann::json point_sites_json(const QuantPointResult& p);

// The report's quant point by its path; null when it has none.
const QuantPointResult* find_point(const Report& report, const std::string& path);

// "`self.quant` (model.py:12), scale 3.0518e-05 for [-1, 200]": the quant point as the user
// wrote it.
std::string describe_point(const Report& report, const std::string& path);

// "with only it quantized, 4 of 8 results differ; with it in float and the other quant points
// quantized, none of 8 results differ": what the passes measured about one cause (a later cause
// is measured with the earlier ones in float too, and says so).
std::string describe_cause(const Attribution& attribution, const Cause& cause);

// One line per cause, for a finding's notes ("caused by ...").
std::vector<std::string> attribution_notes(const Report& report, const Attribution& attribution);

// The report's attribution for a comparison (by comparison key) or an output; null if none.
const Attribution* find_attribution(const Report& report, const std::string& comparison_key);
const Attribution* find_output_attribution(const Report& report, size_t output);

// Why the report's divergences in Report::unattributed have no attribution: "the search stopped
// at its budget of 4 simulated passes for this model (...)"; "" when all have one.
std::string why_unattributed(const Report& report);

// Whether the report left this comparison (by comparison key) or output unattributed.
bool unattributed_comparison(const Report& report, const std::string& comparison_key);
bool unattributed_output(const Report& report, size_t output);

// The "Attribution" and "Sensitivity" sections of `qlint sim`'s text, when there are any.
void render_attribution_text(const Report& report, std::ostream& out);

// The JSON members `attribution` and `sensitivity` (docs/json-output.md).
void add_attribution_json(const Report& report, nlohmann::json& out);

}  // namespace qlint::sim
