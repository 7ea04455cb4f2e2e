#include "rewriter/verdict.h"

#include <algorithm>

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
  const int remaining_problems = static_remaining() + static_cast<int>(simulation_failures.size());
  return std::max(0, problems_found() - remaining_problems);
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
