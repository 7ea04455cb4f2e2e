#include "rewriter/verdict.h"

#include <algorithm>
#include <set>
#include <string>

#include "analysis/facts.h"
#include "rules/registry.h"
#include "sim/report.h"

namespace qlint::rewriter {

namespace {

bool is_sim_divergence(const Diagnostic& d) { return d.rule == rules::sim_divergence_rule().id; }

}  // namespace

const sim::Report* FixResult::final_simulation() const {
  if (applied.empty()) return verification.before.batches > 0 ? &verification.before : nullptr;
  return verification.ran ? &verification.after : nullptr;
}

int FixResult::static_remaining() const {
  return static_cast<int>(
      std::count_if(remaining.begin(), remaining.end(), [](const Diagnostic& d) { return !is_sim_divergence(d); }));
}

int FixResult::problems_resolved() const {
  // A comparison or cast that still flips and that a remaining finding reports too (a cast left
  // to truncating-cast, confirmed by the simulation) is one problem, not two (public round 18:
  // "Applied 2 rewrites for 0 of 2 problems" after one of them was resolved).
  std::set<std::string> reported;
  for (const auto& d : remaining)
    if (!is_sim_divergence(d) && d.node != nullptr && d.node->loc.known())
      reported.insert(analysis::comparison_key(*d.node));
  const auto also_reported = [&](const Diagnostic& d) {
    return d.evidence_node != nullptr && reported.count(analysis::comparison_key(*d.evidence_node));
  };
  const auto failures = std::count_if(simulation_failures.begin(), simulation_failures.end(),
                                      [&](const Diagnostic& d) { return !also_reported(d); });
  return std::max(0, problems_found() - static_remaining() - static_cast<int>(failures));
}

void judge_final_model(FixResult& result, const FixOptions& options) {
  const sim::Report* simulated = result.final_simulation();
  if (simulated == nullptr || !result.final_model) return;
  result.min_sqnr_db = options.min_sqnr.value_or(sim::default_min_sqnr_db(simulated->bits));
  analysis::SimulationEvidence evidence = sim::evidence_from(*simulated);
  evidence.run = sim::simulated_run(*simulated, result.min_sqnr_db);
  auto facts = analysis::Facts::compute(*result.final_model, options.stubs, evidence);
  std::vector<Diagnostic> found = rules::run_all(facts);
  // The verdict is the fix's own check, as float identity is: it holds whatever the selection.
  std::copy_if(found.begin(), found.end(), std::back_inserter(result.simulation_failures), is_sim_divergence);
  result.remaining = options.filter ? options.filter(*result.final_model, std::move(found)) : std::move(found);
}

}  // namespace qlint::rewriter
