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

// One output's SQNR in two runs (before and after a fix) on the same footing: with its rows
// paired with float's only when both runs hold float's rows in another order, else position by
// position. A positional "before" set against a paired "after" hid a ranking the fix changed
// (6 trajectory modes sorted by probability, two 13 % apart swapped: read as 20.6 -> 25.0 dB,
// 4.9 dB position by position). `footing` says which, when one run alone was reordered.
struct SqnrChange {
  double was_db = 0, is_db = 0;
  std::string footing;
};
SqnrChange sqnr_change(const OutputResult& was, const OutputResult& is);

nlohmann::json render_json(const Report& report);

// A number for the JSON reports: infinities as the strings "inf" and "-inf", which JSON lacks.
nlohmann::json json_number(double v);

// What the rules can use of a simulation: calibrated quant points, and the comparisons whose
// tensor held only 0 and the constant.
analysis::SimulationEvidence evidence_from(const Report& report);

// The run's results for the sim-divergence rule (`check --input`): every comparison and
// output, and the SQNR an output must keep.
analysis::SimulatedRun simulated_run(const Report& report, double min_sqnr_db);

// The width the simulation ran at, as users name it: "uint8" when every activation quant point
// held 0..255 (PyTorch's default QAT qconfig, quint8), else "int8" or "int16" (public round 19:
// default-qconfig models were said to run an "int8 simulation").
std::string width_name(const Report& r);

// The default of `--min-sqnr`: 40 dB for int16, 20 dB for int8 (docs/rules/sim-divergence.md).
double default_min_sqnr_db(int bits);

}  // namespace qlint::sim
