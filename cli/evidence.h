// Simulation evidence for lint diagnostics (`qlint check --input X.pt`): the calibrated scales
// and the run's results feed the rules (sim-divergence reports what the simulation measured),
// and the comparisons whose results the simulation flips are confirmed on the static
// diagnostics that predicted them, which then become errors; sim-divergence does not report
// those a second time.
#pragma once

#include <string>
#include <vector>

#include "analysis/facts.h"
#include "rules/diagnostic.h"
#include "sim/report.h"
#include "sim/simulator.h"

namespace qlint::cli {

// Runs after the diagnostics filter, so a comparison whose static finding is deselected or
// suppressed is still reported by sim-divergence.
void attach_evidence(std::vector<Diagnostic>& diagnostics, const sim::Report& report);

// The quant points that cause each divergence (sim::Report::attributions), as notes on the
// findings that report it (sim-divergence, and static findings the simulation confirmed), with
// the other findings at those quant points ("see shared-stub-mask at line 171").
void attach_attribution(std::vector<Diagnostic>& diagnostics, const sim::Report& report, const analysis::Facts& facts);

}  // namespace qlint::cli
