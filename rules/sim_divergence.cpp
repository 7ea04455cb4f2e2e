// sim-divergence: what the simulation of `qlint check --input` measured, as findings: a
// comparison whose results differ between the float run and the simulated int run, an op whose
// integer result float values decide (argmax, topk, a cast to integers) and whose results
// differ, and a model output whose SQNR against float is under the threshold (`--min-sqnr`). It catches the hazards
// no static rule describes. It reads the simulation's results from the facts, so without
// inputs (or in --fix's rounds, which leave them out) it never fires. A comparison that a
// static finding already reports is confirmed on that finding instead (cli/evidence.cpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "analysis/comparisons.h"
#include "analysis/constants.h"
#include "rules/registry.h"
#include "rules/support.h"

namespace qlint::rules {

namespace {

std::string what_was_simulated(const analysis::SimulatedRun& run) { return analysis::describe(run); }

std::string decibels(double db) {
  if (std::isinf(db)) return db < 0 ? "-inf dB" : "inf dB";
  if (std::isnan(db)) return "NaN dB";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f dB", db);
  return text;
}

// `x == 0`: quantization keeps 0 exact, but it rounds small values onto it.
bool compares_with_zero(const ir::Node& node) {
  for (const ir::Value* operand : node.inputs)
    if (auto c = analysis::scalar_constant(operand); c && *c == 0) return true;
  return false;
}

// `hmax == heat`: two tensors, neither a constant.
bool compares_two_tensors(const ir::Node& node) {
  return node.inputs.size() >= 2 && node.inputs[0]->type.is_tensor() && node.inputs[1]->type.is_tensor() &&
         !analysis::constant_values(node.inputs[0]) && !analysis::constant_values(node.inputs[1]);
}

// The output of `node` that holds its decision (a max's indices), or null.
const ir::Value* decision_value(const ir::Node& node) {
  const int output = analysis::decision_output(node.kind);
  return output >= 0 && static_cast<size_t>(output) < node.outputs.size() ? node.outputs[static_cast<size_t>(output)]
                                                                          : nullptr;
}

// Whether the node has that output (`max` over a dim has two outputs; `max` of a whole tensor
// gives a float) and something reads it.
bool makes_integer_result(const ir::Node& node) {
  const ir::Value* result = decision_value(node);
  if (result == nullptr || node.inputs.empty()) return false;
  // Read by a node, or returned as it is (a model whose output is the class ids an argmax gives).
  return !result->users.empty() ||
         (node.owner != nullptr &&
          std::find(node.owner->returns.begin(), node.owner->returns.end(), result) != node.owner->returns.end());
}

// Whether `writer` runs after `reader` in the same block, so the values it writes cannot be those
// the reader read (public round 19: `oij < 0` on one line "followed" `range_mask` made on the next,
// which only decided what a later `oij[~range_mask] = 0` wrote, and the notes pointed at each other).
bool writes_after(const ir::Node& writer, const ir::Node& reader) {
  if (writer.owner == nullptr || writer.owner != reader.owner) return false;
  for (const auto& n : writer.owner->nodes) {
    if (n.get() == &reader) return true;
    if (n.get() == &writer) return false;
  }
  return false;
}

// A decision the simulation saw change on the way to `comparison`'s operands (a flipped
// comparison, a topk whose indices changed): through their producers and the writes in place
// into them (`idx[d > 0.25] = n` writes `idx`, then sorted and compared with `n`). Null when there
// is none within a few hundred values.
const ir::Node* changed_decision_before(const analysis::Facts& facts, const ir::Node& comparison) {
  // Nearest first: `(topk_inds / width).int()` follows the topk it divides, not a threshold further
  // up that the width's shape also comes from.
  std::deque<const ir::Value*> pending(comparison.inputs.begin(), comparison.inputs.end());
  std::set<const ir::Value*> seen;
  const ir::Node* found = nullptr;
  // `through`: the output of `n` the walk came by (null for a write into a value). A max's or a
  // topk's values are the rounded maxima whichever element wins: only its indices follow the
  // decision (`v, j = y.max(1); v > 0.25` flips by v's rounding, not by j's changes).
  auto visit = [&](const ir::Node& n, const ir::Value* through) {
    const bool decides = analysis::is_comparison_op(n.kind) ||
                         (makes_integer_result(n) && (through == nullptr || decision_value(n) == through));
    // This copy's own count: a later step's mask flipped, not this step's (changed_at_each_line).
    const analysis::SimulatedComparison* c = &n != &comparison && decides ? facts.simulated_copy(n) : nullptr;
    if (c != nullptr && c->differing > 0 && found == nullptr) found = &n;
    pending.insert(pending.end(), n.inputs.begin(), n.inputs.end());
  };
  while (!pending.empty() && found == nullptr && seen.size() < 512) {
    const ir::Value* v = pending.front();
    pending.pop_front();
    if (!seen.insert(v).second) continue;
    add_values_across_calls(facts.model(), *v, pending);
    if (v->producer != nullptr) visit(*v->producer, v);
    for_each_write_into(*v, [&](const ir::Node& writer) {
      if (!writes_after(writer, comparison)) visit(writer, nullptr);
    });
  }
  return found;
}

// Exact operands (integer indices a flipped threshold wrote, a topk's indices divided by the
// width): the difference is that decision's. ", though its operands carry no rounding: ..." then,
// else "".
// The simulation counts the line's `copies` together: where one of them rounds (a kNN of a
// second layer on quantized features, beside the first layer's that --fix rerooted onto float:
// public round 24), its operands do carry rounding.
std::string follows_a_changed_decision(const analysis::Facts& facts, const ir::Node& node,
                                       const std::vector<const ir::Node*>& copies) {
  // Rounded values stay rounded past a DeQuantStub (decoding after the network): those carry it.
  for (const ir::Node* copy : copies)
    if (std::any_of(copy->inputs.begin(), copy->inputs.end(), [&](const ir::Value* v) { return facts.quantized(v); }))
      return "";
  const ir::Node* before = changed_decision_before(facts, node);
  if (before == nullptr) return "";
  std::string cause = ir::source_text(facts.model(), before->loc);
  const bool comparison = analysis::is_comparison_op(before->kind);
  return ", though its operands carry no rounding: they come from " +
         (cause.empty() ? comparison ? std::string("a comparison") : "`" + ir::operator_spelling(before->kind) + "`"
                        : "`" + cause + "`") +
         " on " + ir::line_seen_from(before->loc, node.loc) +
         (comparison ? ", which flips first" : ", which changes first") +
         "; take that decision on float values, and this one follows";
}

// Rounded operands that a changed decision also feeds (a kNN whose query centres a farthest-point
// sampling picked, and picked differently once quantized): the count mixes both causes, which the
// headline's rounding advice alone hides. A note naming the decision then, else "".
// "`keep = nms(boxes, scores, 0.5)` on line 40, which changes first (3 of 12)": a decision
// changed_decision_before found, as seen from `from`.
std::string changed_decision_words(const analysis::Facts& facts, const ir::Node& before, const ir::SourceLoc& from) {
  const std::string cause = ir::source_text(facts.model(), before.loc);
  const analysis::SimulatedComparison& c = *facts.simulated_comparison(before);
  return (cause.empty() ? "`" + ir::operator_spelling(before.kind) + "`" : "`" + cause + "`") + " on " +
         ir::line_seen_from(before.loc, from) + ", which " +
         (analysis::is_comparison_op(before.kind) ? "flips" : "changes") + " first (" + std::to_string(c.differing) +
         " of " + std::to_string(c.elements) + ")";
}

std::string also_follows_a_changed_decision(const analysis::Facts& facts, const ir::Node& node) {
  if (std::none_of(node.inputs.begin(), node.inputs.end(), [&](const ir::Value* v) { return facts.quantized(v); }))
    return "";
  const ir::Node* before = changed_decision_before(facts, node);
  if (before == nullptr) return "";
  return "its operands also come from " + changed_decision_words(facts, *before, node.loc) +
         ": part of these differences, or most, may follow from it; take that decision on float values too";
}

std::string comparison_message(const analysis::Facts& facts, const std::vector<const ir::Node*>& copies,
                               const analysis::SimulatedComparison& c, const analysis::SimulatedRun& run) {
  const ir::Node& node = *copies.front();  // the copy told (changed_at_each_line)
  std::string text = ir::source_text(facts.model(), node.loc);
  std::string what = text.empty() ? "this `" + ir::operator_spelling(node.kind) + "` comparison" : "`" + text + "`";
  bool equality = node.kind == "aten::eq" || node.kind == "aten::ne";
  const std::string differs = what + " gives a different result for " + std::to_string(c.differing) + " of " +
                              std::to_string(c.elements) + " elements once quantized (" + what_was_simulated(run) + ")";
  if (std::string follows = follows_a_changed_decision(facts, node, copies); !follows.empty()) return differs + follows;
  return differs + "; compare the float values before the quant point, or " +
         (!equality ? "keep the threshold away from the values the data takes (the rounding moves them by up to "
                      "half a quantization step)"
          : compares_two_tensors(node)
              ? "keep the comparison in float: quantization puts values that differ in float on one step, so "
                "they compare equal once quantized (`hmax == heat` finds ties as peaks)"
          : compares_with_zero(node)
              ? "compare the magnitude with a tolerance the data allows: once quantized, values within half a "
                "quantization step of 0 become 0, and values that clip at the end of a quant point's range become "
                "equal (their difference 0)"
              : "compare with 0 (which quantization keeps exact) if the values are only 0 and the constant");
}

// Why a decision's float input is no help: the layers before the quant point rounded it already.
constexpr const char* kComputedFromQuantized =
    " is itself computed from quantized values, so a decision on it would still round";

bool computed_from_quantized(const std::string& refusal) {
  return refusal.find(kComputedFromQuantized) != std::string::npos;
}

// Reads each compared value that carries quantization from its float shadow instead, the same
// computation from the stub's float input, where the decision is the float model's: float
// results are unchanged. Offered only where every such side's float input is float data, so the
// comparison really is exact: rerooting one side of `d < best` while `best` (a buffer filled
// with quantized distances) stays quantized would change no result. Else `refusal` says why.
std::optional<std::vector<Edit>> exact_reroots(const analysis::Facts& facts, const ir::Node& node,
                                               std::string& refusal) {
  std::vector<Edit> edits;
  for (int side = 0; side < 2 && static_cast<size_t>(side) < node.inputs.size(); ++side) {
    const ir::Value* compared = node.inputs[static_cast<size_t>(side)];
    // Also after a DeQuantStub: the values there carry the rounding still (a threshold in the
    // post-processing of public round 17's SSD got advice to compare float values and no word on
    // why `--fix` did not).
    if (!facts.quantized(compared)) continue;
    auto edit = reroot_edit(facts, node, side, &refusal);
    if (edit && !shadow_is_exact(facts, edit->shadow)) {
      refusal = "no automatic fix: the float input of the quant point " + describe_stubs(facts, compared) +
                kComputedFromQuantized;
      edit.reset();
    }
    if (!edit) {
      std::string operand = ir::written_name(facts.model(), compared);
      if (refusal.empty()) refusal = "no automatic fix: the quantized operand cannot be recomputed in float";
      if (!operand.empty()) refusal += " (for the compared `" + operand + "`)";
      return std::nullopt;
    }
    // In a function called from several places the simulation counts every call's results
    // together: each call is inlined and rerooted, all in this one fix (a later round has no
    // simulation to show the other calls flip).
    const size_t calls = edit->shadow.inline_call ? edit->shadow.inline_sites : 1;
    edits.push_back(std::move(*edit));
    for (size_t choice = 1; choice < calls; ++choice) {
      auto other = reroot_edit(facts, node, side, &refusal, choice);
      if (!other || !shadow_is_exact(facts, other->shadow)) {
        if (refusal.empty()) refusal = "no automatic fix: another call of the function cannot be rerooted";
        return std::nullopt;
      }
      edits.push_back(std::move(*other));
    }
  }
  // Empty when no operand carries quantization: nothing to reroot in this copy (a kNN on the
  // float points, beside its copies on quantized features at the same line).
  return edits;
}

// One fix for the copies of the comparison at this line (a helper a trace inlined for lanes,
// crosswalks and route, a kNN for each layer) that can be rerooted exactly. When others cannot
// (DGCNN: the first kNN on the stub's points can, those on quantized features cannot), the fix
// says for how many, and `refusal` why not the rest: the simulation counts the copies together,
// so the finding stays for them.
std::optional<Fix> reroot_fix(const analysis::Facts& facts, const std::vector<const ir::Node*>& copies,
                              std::string& refusal, bool integer_result = false) {
  std::vector<Edit> edits;
  std::vector<std::string> stubs;
  size_t rerooted_copies = 0, refused_copies = 0;
  std::string first_refusal;
  for (const ir::Node* node : copies) {
    std::string why;
    auto rerooted = exact_reroots(facts, *node, why);
    if (!rerooted) {
      ++refused_copies;
      if (first_refusal.empty()) first_refusal = why;
      continue;
    }
    if (!rerooted->empty()) ++rerooted_copies;
    for (Edit& edit : *rerooted) {
      std::string these = describe_stubs(facts, node->inputs.at(static_cast<size_t>(edit.operand)));
      if (std::find(stubs.begin(), stubs.end(), these) == stubs.end()) stubs.push_back(these);
      edits.push_back(std::move(edit));
    }
  }
  refusal = first_refusal;
  if (edits.empty()) return std::nullopt;
  if (refused_copies > 0 && !refusal.empty()) refusal = unfixed_copies_note(refused_copies, copies.size(), refusal);
  const std::string inputs = listed(stubs);
  const std::string partly = refused_copies == 0 ? "" : fixed_copies(rerooted_copies, copies.size());
  return safe_fix((integer_result ? "compute `" + ir::operator_spelling(copies.front()->kind) +
                                        "`'s operand from the float input of " + inputs +
                                        " instead, where its result is the float model's"
                                  : reroot_comparison_description(inputs)) +
                      partly,
                  std::move(edits));
}

// The nodes `picks` chooses whose results the simulation saw differ, grouped by their line: the
// simulation counts a line's copies together (a helper a trace inlined for each FPN level), so
// each group is one finding, in the model's order. It is told at the first copy that flipped,
// where the simulation tells the copies apart (public round 23: in a greedy decode loop a trace
// unrolled, the padding mask of the first step, on the start token, never flips; those of later
// steps do, on the tokens an earlier step's argmax picked, which the finding must name as their
// cause), else at the first copy.
std::vector<std::pair<const ir::Function*, std::vector<const ir::Node*>>> changed_at_each_line(
    const analysis::Facts& facts, const std::function<bool(const ir::Node&)>& picks) {
  std::vector<std::pair<const ir::Function*, std::vector<const ir::Node*>>> groups;
  std::map<std::string, size_t> group_of;
  for_each_model_node(facts, [&](const ir::Function& fn, const ir::Node& node) {
    if (!picks(node)) return;
    const analysis::SimulatedComparison* c = facts.simulated_comparison(node);
    if (c == nullptr || c->differing == 0) return;
    auto [it, first] = group_of.try_emplace(analysis::comparison_key(node.kind, node.loc), groups.size());
    if (first) groups.push_back({&fn, {}});
    auto& [told_in, copies] = groups[it->second];
    copies.push_back(&node);
    const analysis::SimulatedComparison* told = facts.simulated_copy(*copies.front());
    if (copies.size() > 1 && told->differing == 0 && facts.simulated_copy(node)->differing > 0) {
      std::rotate(copies.begin(), copies.end() - 1, copies.end());  // this copy first, the others in order
      told_in = &fn;
    }
  });
  return groups;
}

// Why an op's integer result moves once quantized, and what to do, by the op. Where the model
// holds no float values to take the decision on (a ranking of dequantized network outputs, whose
// every input passed quantized layers), the advice says so instead of asking for them (public
// round 22: TNT's `target_prob.topk(m)` after its DeQuantStub was told to take it "before the
// quant point").
std::string integer_result_advice(const std::string& kind, bool float_at_hand) {
  const std::string op = ir::base_op(kind);
  const std::string in_float =
      float_at_hand ? "take the decision on the float values, before the quant point"
                    : "the values it decides on carry the rounding of the layers that compute them, and the model "
                      "holds no float values to decide on instead (see the notes): give those layers more bits, or "
                      "accept these near-ties";
  if (analysis::is_cast_op(kind))
    return "values that the rounding moves across a whole number (2.0 as 1.9997) or across 0 cast to another "
           "integer or bool; cast the float values, before the quant point";
  if (op == "topk")
    return "values closer than a quantization step change places once rounded, and another element makes the top "
           "k; " +
           in_float;
  if (op == "nms") return "boxes and scores moved by the rounding keep other boxes; " + in_float;
  if (op == "bucketize" || op == "searchsorted")
    return "values the rounding moves across a boundary land in the neighbouring bucket; " + in_float;
  return "values closer than a quantization step (near-ties) pick another element once rounded; " + in_float;
}

// argmax, topk, NMS and casts to integers whose results the simulation saw change: one
// finding per line, as for comparisons. A cast of a quantized value is truncating-cast's already;
// that finding gets the simulation's count instead (cli/evidence.cpp).
void report_integer_results(const analysis::Facts& facts, const analysis::SimulatedRun& run,
                            std::vector<Diagnostic>& out) {
  for (const auto& [fn, nodes] : changed_at_each_line(facts, makes_integer_result)) {
    const ir::Node& node = *nodes.front();
    const analysis::SimulatedComparison& c = *facts.simulated_comparison(node);
    std::string text = ir::source_text(facts.model(), node.loc);
    std::string what = text.empty() ? "this `" + ir::operator_spelling(node.kind) + "`" : "`" + text + "`";
    const std::string differs = what + " gives a different integer result for " + std::to_string(c.differing) + " of " +
                                std::to_string(c.elements) + " elements once quantized (" + what_was_simulated(run) +
                                ")";
    const std::string follows = follows_a_changed_decision(facts, node, nodes);
    std::string refusal;
    auto fix = follows.empty() ? reroot_fix(facts, nodes, refusal, /*integer_result=*/true) : std::nullopt;
    const bool float_at_hand = fix.has_value() || !computed_from_quantized(refusal);
    Diagnostic d = make_diagnostic(
        sim_divergence_rule(), *fn, node,
        follows.empty() ? differs + ": " + integer_result_advice(node.kind, float_at_hand) : differs + follows);
    d.evidence_node = &node;
    if (fix) d.fixes.push_back(std::move(*fix));
    if (!refusal.empty())
      d.notes.push_back(refusal);
    else if (!fix && follows.empty())
      d.notes.push_back(
          "no automatic fix: none of its operands carries a quant point's rounding that qlint can follow back (they "
          "are computed from the model's outputs, or from whole numbers), so qlint has no float value to take the "
          "decision on; take it on float values in the model");
    if (std::string also = also_follows_a_changed_decision(facts, node); !also.empty()) d.notes.push_back(also);
    out.push_back(std::move(d));
  }
}

void report_comparisons(const analysis::Facts& facts, const analysis::SimulatedRun& run, std::vector<Diagnostic>& out) {
  const auto is_comparison = [](const ir::Node& node) { return analysis::is_comparison_op(node.kind); };
  for (const auto& [fn, nodes] : changed_at_each_line(facts, is_comparison)) {
    const ir::Node& node = *nodes.front();
    Diagnostic d = make_diagnostic(sim_divergence_rule(), *fn, node,
                                   comparison_message(facts, nodes, *facts.simulated_comparison(node), run));
    d.evidence_node = &node;  // marks a comparison finding, for the confirmation of static ones
    std::string refusal;
    if (auto fix = reroot_fix(facts, nodes, refusal)) d.fixes.push_back(std::move(*fix));
    if (!refusal.empty()) d.notes.push_back(refusal);
    if (std::string also = also_follows_a_changed_decision(facts, node); !also.empty()) d.notes.push_back(also);
    out.push_back(std::move(d));
  }
}

// The value forward returns as output `index`: an element of the returned tuple or list when it
// has one per output, else the returned value. Null when forward has no return.
const ir::Value* output_value(const ir::Function& forward, size_t index, size_t outputs) {
  const auto& returns = forward.body.returns;
  if (returns.empty()) return nullptr;
  const ir::Node* producer = returns[0]->producer;
  if (producer != nullptr && (producer->kind == "prim::TupleConstruct" || producer->kind == "prim::ListConstruct") &&
      producer->inputs.size() == outputs && index < outputs && producer->inputs[index]->producer != nullptr)
    return producer->inputs[index];
  return returns[0];
}

// Where an output is computed, when the node forward returns it from has no location: a traced
// call of a submodule carries none, so the value is followed into the method that returns it
// (`return {"y": self.fc(x) + b}` in a head whose dict the trace unpacked).
std::pair<const ir::Function*, const ir::Node*> located_producer(const ir::Model& model, const ir::Function* fn,
                                                                 const ir::Node* producer, const ir::Value* value) {
  for (int depth = 0; producer != nullptr && !producer->loc.known() && depth < 64; ++depth) {
    // `ys, masks = self.encoder(x)`: the element the callee's returned tuple holds there.
    const ir::Node* call = producer;
    std::optional<size_t> element;
    if (producer->kind == "prim::TupleUnpack" && producer->inputs.size() == 1 && value != nullptr) {
      const auto& outs = producer->outputs;
      element = static_cast<size_t>(std::find(outs.begin(), outs.end(), value) - outs.begin());
      call = producer->inputs[0]->producer;
      if (call == nullptr || *element >= outs.size()) break;
    }
    if (call->kind != "prim::CallMethod" && call->kind != "prim::CallFunction") break;
    const ir::Function* callee = ir::callee_of(model, *call);
    if (callee == nullptr || callee->body.returns.size() != 1 || callee->body.returns[0]->producer == nullptr) break;
    const ir::Value* returned = callee->body.returns[0];
    if (element) {
      if (returned->producer->kind != "prim::TupleConstruct" || *element >= returned->producer->inputs.size() ||
          returned->producer->inputs[*element]->producer == nullptr)
        break;
      returned = returned->producer->inputs[*element];
    }
    fn = callee;
    value = returned;
    producer = returned->producer;
  }
  return {fn, producer};
}

// The whole `return ...` statement when the node is on the line of forward's return.
ir::SourceLoc return_statement(const ir::Model& model, ir::SourceLoc loc) {
  if (!loc.known()) return loc;
  const std::string* line = model.source_line(loc.file, loc.line);
  if (line == nullptr) return loc;
  size_t first = line->find_first_not_of(" \t");
  if (first == std::string::npos || line->compare(first, 6, "return") != 0) return loc;
  size_t last = line->find_last_not_of(" \t\r\n");
  size_t comment = line->find('#', first);  // a trailing comment is no part of the statement
  if (comment != std::string::npos) last = line->find_last_not_of(" \t", comment - 1);
  return {loc.file, loc.line, static_cast<int>(first) + 1, loc.line, static_cast<int>(last) + 2};
}

bool any_decision_changed(const analysis::SimulatedRun& run) {
  return std::any_of(run.comparisons.begin(), run.comparisons.end(),
                     [](const auto& c) { return c.second.differing > 0; });
}

// An output whose rows or size a decision the simulation saw change picks (the boxes a threshold
// lets through, those NMS keeps): a note naming it, else "". Public round 24: RetinaFace's output
// kept its 2 boxes once quantized, one of them another prior's after a threshold flipped, and was
// told only to give the values that lose their precision a quant point of their own; YOLO's
// changed count was told to find a comparison where only NMS had changed.
std::string decided_by_a_changed_decision(const analysis::Facts& facts, const ir::Node* producer,
                                          const analysis::SimulatedOutput& o) {
  if (producer == nullptr || (o.integer && o.shape_difference.empty())) return "";
  const ir::Node* before = changed_decision_before(facts, *producer);
  if (before == nullptr) return "";
  return "its rows are picked by " + changed_decision_words(facts, *before, producer->loc) +
         (o.shape_difference.empty()
              ? ": some of its rows may be other rows than the float model's, not rounded ones; take that decision "
                "on float values, and see whether the SQNR follows"
              : ": take that decision on float values");
}

void report_outputs(const analysis::Facts& facts, const analysis::SimulatedRun& run, std::vector<Diagnostic>& out) {
  const ir::Function* forward = facts.model().find_function("forward");
  for (size_t i = 0; i < run.outputs.size(); ++i) {
    const analysis::SimulatedOutput& o = run.outputs[i];
    if (o.sqnr_db >= run.min_sqnr_db) continue;  // NaN (a quantized output holding NaN) is reported
    // A mask or indices: the comparison or argmax that decides them is reported where it flips;
    // reported here only when the simulation saw no decision change (one it has no probe for).
    if (o.integer && o.shape_difference.empty() && (o.differing_elements == 0 || any_decision_changed(run))) continue;
    std::string message =
        std::isnan(o.sqnr_db)
            ? o.name + " holds NaN or infinity once quantized where the float output does not, or the reverse (" +
                  what_was_simulated(run) +
                  "): a quant point's scale is infinite or NaN (a value holding -inf, such as a mask filled with "
                  "-inf, quantized), or a value overflowed; `qlint sim` shows each quant point's scale and range"
        : o.integer && o.shape_difference.empty()
            ? o.name + " holds bool or integer values, " + std::to_string(o.differing_elements) +
                  " of which differ from float once quantized (" + what_was_simulated(run) +
                  "): a decision in the model (a comparison, a rounding, an index it computes) came out "
                  "differently; find where these values are computed from quantized ones, and take that "
                  "decision on float values"
        : !o.shape_difference.empty()
            ? o.name + " changes shape once quantized (" + o.shape_difference + ", " + what_was_simulated(run) +
                  "): a size the data decides, such as how many boxes pass a threshold or NMS keeps, came out "
                  "differently; find the decision that changed before it (a sim-divergence finding of its own), "
                  "and take that decision on float values"
            : o.name + " keeps only " + decibels(o.sqnr_db) + " SQNR against float (threshold " +
                  format_number(run.min_sqnr_db) + " dB, " + what_was_simulated(run) +
                  "); `qlint sim` shows each quant point's scale and range: give the values that "
                  "lose their precision a quant point of their own";
    const ir::Value* returned = forward ? output_value(*forward, i, run.outputs.size()) : nullptr;
    const auto [fn, producer] =
        located_producer(facts.model(), forward, returned ? returned->producer : nullptr, returned);
    Diagnostic d;
    if (producer != nullptr) {
      d = make_diagnostic(sim_divergence_rule(), *fn, *producer, std::move(message));
      d.loc = return_statement(facts.model(), user_location(facts.model(), *producer, d.loc));
    } else {  // reported at the model file
      d.rule = sim_divergence_rule().id;
      d.severity = sim_divergence_rule().severity;
      d.message = std::move(message);
      d.function = forward;
    }
    d.evidence_output = static_cast<int>(i);
    if (std::string decided = decided_by_a_changed_decision(facts, producer, o); !decided.empty())
      d.notes.push_back(decided);
    out.push_back(std::move(d));
  }
}

std::vector<Diagnostic> check(const analysis::Facts& facts) {
  std::vector<Diagnostic> out;
  const analysis::SimulatedRun* run = facts.simulated_run();
  if (run == nullptr) return out;  // no inputs: nothing was simulated
  report_comparisons(facts, *run, out);
  report_integer_results(facts, *run, out);
  report_outputs(facts, *run, out);
  return out;
}

}  // namespace

const Rule& sim_divergence_rule() {
  static const Rule rule = [] {
    Rule r;
    r.id = "sim-divergence";
    r.summary =
        "(needs --input or --random-input) the int simulation flips a comparison, changes indices or loses an "
        "output's SQNR";
    r.severity = Severity::Error;
    r.check = check;
    r.doc.what =
        "With `--input` or `--random-input`, `qlint check` simulates the model (as `qlint sim` does) and "
        "reports what the simulation measured: every comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`) whose "
        "results differ between the float run and the simulated int run, at the comparison's Python "
        "line; every op whose integer result float values decide and whose results differ (`argmax`, `argmin`, "
        "`max`/`min` over a dim, `topk` (the set it picks), `kthvalue`, `bucketize`, `searchsorted`, torchvision's "
        "`nms`, and a cast of a float tensor to an integer or bool dtype): the neighbours a kNN picks, the class "
        "an argmax gives, a voxel index; and every model output whose SQNR against float is under the "
        "threshold, at the line of forward's `return` (when forward returns a submodule's result, whose call a trace "
        "keeps no line for, at the line where that submodule computes it; the model file when the archive says "
        "neither). A bool or "
        "integer output (a mask, indices) is judged by the ops that decide it, not by its SQNR. A comparison "
        "whose operand has another shape than in float (rows a flipped threshold before it let through) is not "
        "counted as flipping: the threshold before it is. The threshold is "
        "`--min-sqnr DB` (`min-sqnr` in the configuration), by default 40 dB for int16 and 20 dB for "
        "int8, the width the model really has (converted models and traced QAT models with 8-bit "
        "ranges are int8, whatever `--bits` says). A comparison that a static rule reports already (eq-nonzero-const, "
        "shared-stub-mask at "
        "its mask comparison) is not reported twice: that finding gets the note \"confirmed by "
        "simulation: 4 of 8 results differ\" instead, as long as that finding is shown (with the static rule "
        "deselected or its line's finding suppressed, sim-divergence reports the comparison). Without inputs nothing "
        "is simulated and this rule "
        "never fires. Each finding names the quant point that causes it (\"caused by `self.quant` (model.py:12)\", "
        "with what quantizing only that point, and keeping only it in float, does), found by simulating again with "
        "some quant points kept in float (about log2 of their number plus 2 passes), and points to the static "
        "findings at that quant point; `qlint sim --attribute` and `--sensitivity` show the same "
        "([simulation attribution](../attribution.md)).";
    r.doc.why =
        "Static rules know the patterns that break; the simulation catches the rest. A threshold "
        "comparison such as `x > 0.5` is exact in float, but once quantized every value moves to the "
        "nearest multiple of the scale (up to half a step, 0.00003 at scale 0.00006): values on or near "
        "the threshold land on the other side, and the decision flips. An output's SQNR says how much "
        "of the float signal survives: each int16 bit is worth about 6 dB, so an int16 model that keeps "
        "under 40 dB (noise at 1% of the signal's amplitude) has lost most of its 16 bits somewhere, "
        "and an int8 model under 20 dB (10%) is wrong, not merely noisy.";
    r.doc.example =
        "    x = self.quant(x)\n"
        "    energy = x.abs().mean(dim=-1)\n"
        "    keep = energy > 0.5            # rows at 0.5 become 0.500015: `keep` flips\n"
        "    return self.dequant(x.masked_fill(~keep[..., None], 0.0))";
    r.doc.fix =
        "Take the decision on the float values, before the quant point:\n\n"
        "    keep = x.abs().mean(dim=-1) > 0.5\n"
        "    x = self.quant(x)\n"
        "    return self.dequant(x.masked_fill(~keep[..., None], 0.0))\n\n"
        "or move the threshold away from the values the data takes. For an output under the SQNR "
        "threshold, `qlint sim` lists each quant point's scale and range: a point whose range is set "
        "by large values while small ones carry the signal needs a quant point of its own.";
    r.doc.fix_safety =
        "Safe for a comparison whose compared value qlint can recompute from the stub's float input (the "
        "float shadow, as for eq-nonzero-const): `--fix --input` compares that float value instead, and float "
        "results are unchanged, in scripted, traced QAT and FX-traced models alike. Every side of the "
        "comparison that carries quantization is rerooted, or none: rerooting `d` alone in `d < best` "
        "would change no result. A comparison after a DeQuantStub counts: its values carry the rounding "
        "still, and the shadow passes the DeQuantStub (post-processing that thresholds scores a stub "
        "quantized). In-place arithmetic on a fresh value (`dist += ...`, as pairwise squared "
        "distances are built), and writes into a fresh tensor in the comparison's function (`y = x.clone(); "
        "y[:, 0] = x[:, 0] - x[:, 2] / 2`, as YOLO utilities convert boxes; `best[closer] = d[closer]`, as "
        "farthest-point sampling keeps its distances), are copied into the float shadow, into its own copy; "
        "a buffer a called function or module state writes keeps its finding, with the reason. An argmax, topk or cast "
        "whose results changed is fixed the same way: "
        "its operand is computed from the stub's float input (a kNN's distances), where its result is the float "
        "model's. Where a helper a trace inlined leaves several copies at one line (a kNN on the points and "
        "on each layer's features), the copies that can be rerooted are (\"for 1 of its 4 copies on this "
        "line\"), and the finding stays for the others with the reason. An output under the threshold gets no "
        "automatic fix, nor does a "
        "comparison on a value the float shadow cannot reach (its finding's note says why): the simulation "
        "shows what breaks, not which rewrite keeps float results.";
    return r;
  }();
  return rule;
}

}  // namespace qlint::rules
