#include "cli/evidence.h"

#include <algorithm>
#include <optional>
#include <set>

#include "analysis/constants.h"
#include "ir/ops.h"
#include "rules/registry.h"
#include "sim/attribution_report.h"

namespace qlint::cli {

namespace {

// The simulation's results at the node's place: a helper a trace inlined for two calls (a pad
// mask for the source and the target) makes two probes at one line, counted together as the
// sim-divergence rule and the attribution count them. Comparisons with another constant on that
// line are others (public round 20: `adj == 0` and `adj == 1` in one statement, the note on `== 1`
// counted both: "40 of 320" where 40 of its 160 results differ).
std::optional<sim::ComparisonResult> find_comparison(const sim::Report& report, const ir::Node& node) {
  if (!node.loc.known()) return std::nullopt;
  std::optional<double> constant;
  for (size_t side = 0; side < 2 && side < node.inputs.size() && !constant; ++side)
    constant = analysis::scalar_constant(node.inputs[1 - side]);
  std::optional<sim::ComparisonResult> found;
  for (const auto& c : report.comparisons) {
    if (c.kind != node.kind || !(c.loc == node.loc)) continue;
    if (constant && c.constant && *c.constant != *constant) continue;
    if (!found) {
      found = c;
      continue;
    }
    found->elements += c.elements;
    found->differing += c.differing;
  }
  return found;
}

// "int16 simulation on 1 input batch", as the sim-divergence rule words it.
std::string what_was_simulated(const sim::Report& report) {
  return analysis::describe(sim::simulated_run(report, /*min_sqnr_db=*/0));
}

bool is_sim_divergence(const Diagnostic& d) { return d.rule == rules::sim_divergence_rule().id; }

// The comparison key of the finding's comparison (its evidence node, else its node); nullopt when
// it has none at a known line.
std::optional<std::string> comparison_key_of(const Diagnostic& d) {
  const ir::Node* node = d.evidence_node ? d.evidence_node : d.node;
  if (node == nullptr || !node->loc.known()) return std::nullopt;
  return analysis::comparison_key(*node);
}

const sim::Attribution* attribution_for(const Diagnostic& d, const sim::Report& report) {
  if (d.evidence_output >= 0) return sim::find_output_attribution(report, static_cast<size_t>(d.evidence_output));
  const auto key = comparison_key_of(d);
  return key ? sim::find_attribution(report, *key) : nullptr;
}

// Whether the report left the finding's divergence unattributed (sim::Report::unattributed).
bool unattributed(const Diagnostic& d, const sim::Report& report) {
  if (d.evidence_output >= 0) return sim::unattributed_output(report, static_cast<size_t>(d.evidence_output));
  const auto key = comparison_key_of(d);
  return key && sim::unattributed_comparison(report, *key);
}

// Whether the finding is about values of quant point `point`: its node reads or makes them.
bool concerns(const Diagnostic& d, const std::string& point, const analysis::Facts& facts) {
  if (d.node == nullptr) return false;
  for (const auto* values : {&d.node->inputs, &d.node->outputs})
    for (const ir::Value* v : *values)
      if (facts.quant_sources(v).count(point)) return true;
  return false;
}

// The value part a shared-stub-mask finding is about, where its evidence says where that part
// becomes a mask: " (the part of its output that becomes a mask on line 173)".
std::string part_made_a_mask(const Diagnostic& d) {
  if (d.rule != rules::shared_stub_mask_rule().id || d.evidence_node == nullptr || !d.evidence_node->loc.known())
    return "";
  return " (the part of its output that becomes a mask on " + ir::line_seen_from(d.evidence_node->loc, d.loc) + ")";
}

// "see also shared-stub-mask at line 171 (the part of its output that becomes a mask on line 173),
// bool-arith at line 180, at the quant point that causes it".
std::string related_findings(const std::vector<Diagnostic>& diagnostics, const Diagnostic& self,
                             const std::vector<sim::Cause>& causes, const analysis::Facts& facts) {
  constexpr size_t kMaxRelated = 3;
  std::vector<std::string> related;
  for (const auto& d : diagnostics) {
    if (&d == &self || is_sim_divergence(d) || related.size() == kMaxRelated) continue;
    bool same_point =
        std::any_of(causes.begin(), causes.end(), [&](const sim::Cause& c) { return concerns(d, c.point, facts); });
    if (!same_point) continue;
    std::string where = d.loc.known() ? " at " + ir::line_seen_from(d.loc, self.loc) + part_made_a_mask(d) : "";
    if (std::find(related.begin(), related.end(), d.rule + where) == related.end()) related.push_back(d.rule + where);
  }
  std::string out;
  for (const auto& r : related) out += (out.empty() ? "" : ", ") + r;
  return out.empty() ? "" : "see also " + out + ", at the quant point that causes it";
}

}  // namespace

void attach_evidence(std::vector<Diagnostic>& diagnostics, const sim::Report& report) {
  // Comparisons a static finding reports, by line as the simulation counts them: a line's copies
  // (a helper called on two tensors, one of them fixed) are one comparison (public round 18: one
  // cast, reported by sim-divergence at its first copy and truncating-cast at the second).
  std::set<std::string> confirmed;
  for (auto& d : diagnostics) {
    if (is_sim_divergence(d)) continue;
    const ir::Node* node = d.evidence_node ? d.evidence_node : d.node;
    if (node == nullptr) continue;
    const std::optional<sim::ComparisonResult> c = find_comparison(report, *node);
    if (!c) continue;
    std::string which = node != d.node      ? "the mask comparison on " + ir::line_seen_from(node->loc, d.loc)
                        : c->integer_result ? "this `" + ir::operator_spelling(node->kind) + "`"
                                            : "this comparison";
    if (c->differing == 0 && c->runs_not_compared > 0) {
      // Another shape than float's there: nothing was compared, so nothing is said to agree
      // (public round 20: "leaves all 0 results ... as in float" where coordinates were halved).
      d.notes.push_back("the " + what_was_simulated(report) + " compared " +
                        (c->elements == 0 ? "no result" : "only " + std::to_string(c->elements) + " results") + " of " +
                        which + ": in " + std::to_string(c->runs_not_compared) +
                        (c->runs_not_compared == 1 ? " run" : " runs") +
                        " it had another shape than in float (a decision before it changed what reaches it)");
      continue;
    }
    if (c->differing == 0) {
      d.notes.push_back("the " + what_was_simulated(report) + " leaves all " + std::to_string(c->elements) +
                        " results of " + which + " as in float; other inputs may not");
      continue;
    }
    confirmed.insert(analysis::comparison_key(*node));
    d.severity = Severity::Error;
    d.notes.push_back("confirmed by simulation: " + std::to_string(c->differing) + " of " +
                      std::to_string(c->elements) + " results of " + which + " differ (" + what_was_simulated(report) +
                      ")");
  }
  // sim-divergence reports a flipped comparison only when no finding shown predicts it.
  diagnostics.erase(std::remove_if(diagnostics.begin(), diagnostics.end(),
                                   [&](const Diagnostic& d) {
                                     return is_sim_divergence(d) && d.evidence_node != nullptr &&
                                            confirmed.count(analysis::comparison_key(*d.evidence_node)) > 0;
                                   }),
                    diagnostics.end());
}

void attach_attribution(std::vector<Diagnostic>& diagnostics, const sim::Report& report, const analysis::Facts& facts) {
  std::vector<std::vector<std::string>> notes(diagnostics.size());
  for (size_t i = 0; i < diagnostics.size(); ++i) {
    const sim::Attribution* a = attribution_for(diagnostics[i], report);
    if (a == nullptr && unattributed(diagnostics[i], report))
      notes[i].push_back("not attributed to a quant point: " + sim::why_unattributed(report));
    if (a == nullptr) continue;
    notes[i] = sim::attribution_notes(report, *a);
    if (std::string related = related_findings(diagnostics, diagnostics[i], a->causes, facts); !related.empty())
      notes[i].push_back(related);
  }
  for (size_t i = 0; i < diagnostics.size(); ++i) {
    // Caused by the weights alone: no rewrite of the activations helps, whatever kept the rule's
    // own fix away (a note that the value reaches the comparison through calls, on a model whose
    // flip the weights make, sent users looking for a cure there). When the activations alone
    // diverge too, why their fix is missing still matters.
    if (const sim::Attribution* a = attribution_for(diagnostics[i], report);
        a != nullptr && a->weights_alone && !a->activations_alone) {
      auto& own = diagnostics[i].notes;
      own.erase(std::remove_if(own.begin(), own.end(),
                               [](const std::string& note) { return note.rfind("no automatic fix:", 0) == 0; }),
                own.end());
    }
    diagnostics[i].notes.insert(diagnostics[i].notes.end(), notes[i].begin(), notes[i].end());
  }
}

}  // namespace qlint::cli
