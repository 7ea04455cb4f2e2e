#include "cli/evidence.h"

#include <algorithm>
#include <set>

#include "rules/registry.h"

namespace qlint::cli {

namespace {

const sim::ComparisonResult* find_comparison(const sim::Report& report, const ir::Node& node) {
  if (!node.loc.known()) return nullptr;
  for (const auto& c : report.comparisons)
    if (c.kind == node.kind && c.loc == node.loc) return &c;
  return nullptr;
}

// "int16 simulation on 1 input batch", as the sim-divergence rule words it.
std::string what_was_simulated(const sim::Report& report) {
  return analysis::describe(sim::simulated_run(report, /*min_sqnr_db=*/0));
}

bool is_sim_divergence(const Diagnostic& d) { return d.rule == rules::sim_divergence_rule().id; }

}  // namespace

void attach_evidence(std::vector<Diagnostic>& diagnostics, const sim::Report& report) {
  std::set<const ir::Node*> confirmed;  // comparisons a static finding reports
  for (auto& d : diagnostics) {
    if (is_sim_divergence(d)) continue;
    const ir::Node* node = d.evidence_node ? d.evidence_node : d.node;
    if (node == nullptr) continue;
    const sim::ComparisonResult* c = find_comparison(report, *node);
    if (c == nullptr) continue;
    std::string which =
        node == d.node ? "this comparison" : "the mask comparison on line " + std::to_string(node->loc.line);
    if (c->differing == 0) {
      d.notes.push_back("the " + what_was_simulated(report) + " leaves all " + std::to_string(c->elements) +
                        " results of " + which + " as in float; other inputs may not");
      continue;
    }
    confirmed.insert(node);
    d.severity = Severity::Error;
    d.notes.push_back("confirmed by simulation: " + std::to_string(c->differing) + " of " +
                      std::to_string(c->elements) + " results of " + which + " differ (" + what_was_simulated(report) +
                      ")");
  }
  // sim-divergence reports a flipped comparison only when no finding shown predicts it.
  diagnostics.erase(std::remove_if(diagnostics.begin(), diagnostics.end(),
                                   [&](const Diagnostic& d) {
                                     return is_sim_divergence(d) && d.evidence_node != nullptr &&
                                            confirmed.count(d.evidence_node) > 0;
                                   }),
                    diagnostics.end());
}

}  // namespace qlint::cli
