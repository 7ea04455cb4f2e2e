// Rendering a simulation report: a text table and versioned JSON (docs/json-output.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/simulator.h"

namespace qlint::sim {

std::string render_text(const Report& report);
nlohmann::json render_json(const Report& report);

// What the rules can use of a simulation: calibrated quant points, and the comparisons whose
// tensor held only 0 and the constant.
analysis::SimulationEvidence evidence_from(const Report& report);

}  // namespace qlint::sim
