#include "cli/evidence.h"

#include "cli/render.h"

namespace qlint::cli {

namespace {

const sim::ComparisonResult* find_comparison(const sim::Report& report, const ir::Node& node) {
  if (!node.loc.known()) return nullptr;
  for (const auto& c : report.comparisons)
    if (c.kind == node.kind && c.loc == node.loc) return &c;
  return nullptr;
}

std::string what_was_simulated(const sim::Report& report) {
  return "the int" + std::to_string(report.bits) + " simulation over " + std::to_string(report.batches) +
         (report.batches == 1 ? " input batch" : " input batches");
}

}  // namespace

void attach_evidence(std::vector<Diagnostic>& diagnostics, const sim::Report& report) {
  for (auto& d : diagnostics) {
    const ir::Node* node = d.evidence_node ? d.evidence_node : d.node;
    if (node == nullptr) continue;
    const sim::ComparisonResult* c = find_comparison(report, *node);
    if (c == nullptr) continue;
    std::string which =
        node == d.node ? "this comparison" : "the mask comparison on line " + std::to_string(node->loc.line);
    if (c->differing == 0) {
      d.notes.push_back(what_was_simulated(report) + " leaves all " + std::to_string(c->elements) + " results of " +
                        which + " as in float; other inputs may not");
      continue;
    }
    d.severity = Severity::Error;
    d.notes.push_back(what_was_simulated(report) + " flips " + std::to_string(c->differing) + " of " +
                      std::to_string(c->elements) + " results of " + which);
  }
}

}  // namespace qlint::cli
