// Which quant point causes a divergence: the simulation runs again with only some quant points
// quantized (the others pass their float values through) and sees whether the divergence is
// still there. A binary search over the quant points in the order the model reaches them finds
// the point whose rounding tips the divergence in ceil(log2 N) passes; two more passes measure
// it alone and the model without it. When the model without it still diverges, the search
// goes on among the other points for the next cause (up to kMaxCauses). Passes are shared
// between divergences: one pass measures every output and comparison at once.
//
// This file has no LibTorch dependency: a pass is a function given by the simulator.
#pragma once

#include <functional>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "sim/simulator.h"

namespace qlint::sim {

// What one simulated pass measured: every output against float, and every comparison's
// differing elements by comparison key. A pass on which the model failed (a size the data
// decides went wrong) diverges everywhere.
struct PassOutcome {
  std::vector<OutputResult> outputs;
  std::map<std::string, int64_t> differing;
  std::map<std::string, int64_t> elements;
  std::string failure;
};

// Runs the model with only the named quant points quantized, and the weights quantized as always
// or (`weights` false) kept in float.
using PassRunner = std::function<PassOutcome(const std::set<std::string>& quantized, bool weights)>;

struct AttributionSetup {
  std::vector<std::string> points;  // every quant point the float run reached, in that order
  bool weights_quantized = false;   // the passes quantize weights too (traced QAT layers)
  double min_sqnr_db = 40;
  // Passes the whole search may run. A search is begun (a divergence's first cause, each further
  // cause) only when the passes it may need still fit, so the budget is never exceeded and the
  // outcome does not depend on the machine's speed.
  int max_passes = std::numeric_limits<int>::max();
};

constexpr size_t kMaxCauses = 3;
// Divergences attributed per run: each costs about log2(N) + 2 passes.
constexpr size_t kMaxAttributedDivergences = 16;

// The default budget of passes for a model whose simulated pass quantizes `point_values` values
// at its quant points (over every batch): passes up to about kAttributionValues values in all.
// The seeds and the model zoo need a few thousand values a pass and keep the whole search; a
// diffusion model with 45 million values a pass, 18 s each (public round 28's LED), gets 5
// passes (90 s) instead of 40 minutes.
constexpr int64_t kAttributionValues = int64_t{1} << 28;
int default_attribution_passes(int64_t point_values);

struct Attributed {
  std::vector<Attribution> attributions;
  // Not attributed: past kMaxAttributedDivergences, or when its search did not fit the budget.
  std::vector<Divergence> unattributed;
  int passes = 0;
};

// The outcome of the run with every quant point quantized, from its report.
PassOutcome outcome_of(const Report& report);

// The divergences of that outcome: flipped comparisons, then outputs under the threshold.
std::vector<Divergence> divergences_of(const Report& report, const PassOutcome& full, double min_sqnr_db);

// The lowest of some SQNRs (+inf for none): a sensitivity row's worst output.
double lowest(const std::vector<double>& values);

Attributed attribute(const std::vector<Divergence>& divergences, const PassOutcome& full, const AttributionSetup& setup,
                     const PassRunner& run);

// Each point alone and each point left out: 2 passes a point. Most harmful first: most flipped
// results alone, then the lowest SQNR alone.
std::vector<Sensitivity> sensitivity(const AttributionSetup& setup, const PassRunner& run);

}  // namespace qlint::sim
