// Simulation evidence for lint diagnostics (`qlint check --input X.pt`): the calibrated scales
// feed the rules, and the comparisons whose results the simulation flips are counted on the
// diagnostics that predicted them, which then become errors.
#pragma once

#include <string>
#include <vector>

#include "analysis/facts.h"
#include "rules/diagnostic.h"
#include "sim/report.h"
#include "sim/simulator.h"

namespace qlint::cli {

// `inputs` describes what was simulated, e.g. "int16 simulation over 1 batch of x.pt".
void attach_evidence(std::vector<Diagnostic>& diagnostics, const sim::Report& report);

}  // namespace qlint::cli
