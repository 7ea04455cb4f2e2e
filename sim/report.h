// Rendering a simulation report: a text table and versioned JSON (docs/json-output.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/simulator.h"

namespace qlint::sim {

std::string render_text(const Report& report);

// "self.quant" for a stub's quant point, "forward:%x.1" for a converted model's int8 value that
// no module of its own computes.
std::string point_display(const QuantPointResult& p);

// "1x2x4x4", or "scalar" for no dimensions.
std::string shape_text(const std::vector<int64_t>& shape);

// A figure in five significant digits, as the attribution and layer tables print scales and
// errors: "0.015259".
std::string short_number(double v);

// An SQNR as the reports print it: "48.1 dB", "inf dB".
std::string format_db(double db);
nlohmann::json render_json(const Report& report);

// A number for the JSON reports: infinities as the strings "inf" and "-inf", which JSON lacks.
nlohmann::json json_number(double v);

// What the rules can use of a simulation: calibrated quant points, and the comparisons whose
// tensor held only 0 and the constant.
analysis::SimulationEvidence evidence_from(const Report& report);

// The run's results for the sim-divergence rule (`check --input`): every comparison and
// output, and the SQNR an output must keep.
analysis::SimulatedRun simulated_run(const Report& report, double min_sqnr_db);

// The default of `--min-sqnr`: 40 dB for int16, 20 dB for int8 (docs/rules/sim-divergence.md).
double default_min_sqnr_db(int bits);

}  // namespace qlint::sim
