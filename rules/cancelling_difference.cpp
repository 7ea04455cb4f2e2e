// cancelling-difference: the difference of two parts of one quantized tensor (`traj - traj[:, -1:]`,
// `x[:, 1:] - x[:, :-1]`). Each part is off by up to half a step of the tensor's scale, so their
// difference is off by up to a whole step however small it is: positions a frame apart, made
// relative after one stub on a whole scene's coordinates, keep a few steps of precision (public
// rounds 24 and 27: PECNet's and EigenTrajectory's motion at 11-22 dB while the outputs, which
// add the positions back, kept 32-47 dB and no rule said a word).
#include <optional>
#include <vector>

#include "ir/source_text.h"
#include "ir/spelling.h"
#include "rules/registry.h"
#include "rules/support.h"

namespace qlint::rules {

namespace {

bool is_difference(const ir::Node& node) {
  const std::string op = ir::base_op(node.kind);
  return (op == "sub" || op == "rsub") && node.inputs.size() >= 2 &&
         node.inputs[0]->type.kind == ir::Type::Kind::Tensor && node.inputs[1]->type.kind == ir::Type::Kind::Tensor;
}

// At 8 bits (256 levels, or 128 with reduce_range) a step is a sizeable share of the range: a
// difference of 2% of it keeps about 5 steps, some 20 dB. At 16 bits the same difference keeps
// 1300 steps and about 70 dB, so int16 quant points (a scripted model's stubs unless `--bits 8`) are left
// alone: the rule would warn of a loss no accelerator would see.
constexpr int64_t kMostLevels = 255;

// The quant call both operands are views of, one of them a part (`x - x` is no difference): a
// stub's or an input fake quant's, whose scale spans the data as it came in. A layer's output
// (a head's box corners) is left alone: what it computes is no input's absolute position, and
// its scale is the layer's own.
const analysis::QuantCall* common_quant_call(const analysis::Facts& facts, const ir::Node& node) {
  const auto& first = facts.views_of(node.inputs[0]);
  const auto& second = facts.views_of(node.inputs[1]);
  for (const analysis::QuantCall& call : facts.quant_calls()) {
    const auto a = first.find(call.view_key), b = second.find(call.view_key);
    if (a == first.end() || b == second.end() || (!a->second && !b->second)) continue;
    const analysis::QuantPoint* point = facts.quant_point(call.point);
    if (point == nullptr || point->model_outputs || facts.is_module_output_quant_point(call.point)) continue;
    if (point->quant_max - point->quant_min > kMostLevels) continue;
    return &call;
  }
  return nullptr;
}

// ", 0.118," when the scale is known.
std::string step_of(const analysis::QuantPoint& point) {
  return point.scale ? ", " + format_number(*point.scale) + "," : "";
}

// "the difference of `traj` and `traj[:, -1:]`, two parts of `traj` quantized together by
// `self.quant`, is off by up to a whole step of its scale, 0.118, however small it is ...".
std::string message(const analysis::Facts& facts, const ir::Node& node, const analysis::QuantCall& call) {
  std::string first = ir::operand_text(facts.model(), node, 0), second = ir::operand_text(facts.model(), node, 1);
  if (ir::base_op(node.kind) == "rsub") std::swap(first, second);
  const std::string whole = ir::written_name(facts.model(), call.output);
  // A trace names both parts by the tensor they come from (`obs_m_traj` and `obs_m_traj` for
  // `(traj[:, -1] - traj[:, -3])` in a callee, public round 27): then neither is named.
  const bool told_apart = !first.empty() && !second.empty() && first != second;
  const std::string what = told_apart ? "the difference of " + first + " and " + second + ", " : "this difference, of ";
  return what + "two parts of " + (whole.empty() ? std::string("one tensor") : "`" + whole + "`") +
         " quantized together by " + describe_stubs(facts, call.output, &node) +
         ", is off by up to a whole step of its scale" + step_of(*facts.quant_point(call.point)) +
         " however small it is (each part is off by up to half a step); where the differences are small beside the "
         "values the scale spans (positions a frame apart in a scene, points around their centre), little of their "
         "precision is left; compute the difference on the float input, before the stub, and give it a quant point "
         "of its own";
}

// Each operand that reads `v`: where the difference's quant points go.
std::vector<std::pair<const ir::Node*, int>> readers(const ir::Value* v) {
  std::vector<std::pair<const ir::Node*, int>> found;
  for (const ir::Node* user : v->users)
    for (size_t i = 0; i < user->inputs.size(); ++i)
      if (user->inputs[i] == v) found.emplace_back(user, static_cast<int>(i));
  return found;
}

// The difference through a quant point of its own where each reader reads it (`dir[:, 1]` and
// `dir[:, 0]` for an angle, public round 27's EigenTrajectory: one each): a new QuantStub, or in a
// traced QAT model a clone of its FakeQuantize. Nullopt, with the reason in `d`, when a reader
// can get none.
std::optional<Fix> quant_points_where_read(const analysis::Facts& facts, const ir::Value& difference,
                                           const analysis::QuantCall& call, const std::string& description,
                                           Diagnostic& d) {
  const auto places = readers(&difference);
  if (places.empty()) return std::nullopt;
  std::vector<Edit> stubs, fakes;
  for (const auto& [reader, operand] : places) {
    if (auto stub = quantize_operand_edit(facts, *reader, operand, false))
      stubs.push_back(*stub);
    else if (auto fake = fake_quantize_operand_edit(facts, *reader, operand, false, call.point))
      fakes.push_back(*fake);
  }
  const std::string where =
      places.size() == 1 ? "" : " where each of its " + std::to_string(places.size()) + " readers reads it";
  if (stubs.size() == places.size())
    return safe_fix(description + where + " with " + ir::spelling(facts.model()).new_stub, stubs);
  if (fakes.size() == places.size()) {
    Fix fix = new_fake_quant_fix(description + where + " with a new fake quant", fakes.front());
    fix.edits.insert(fix.edits.end(), fakes.begin() + 1, fakes.end());
    return fix;
  }
  if (std::string why = no_new_stub_reason(facts, *places.front().first); !why.empty()) d.notes.push_back(why);
  return std::nullopt;
}

// Both operands from the float input of the quant call, and the difference through quant points
// of its own where it is read: the float model computes exactly this (the stub is the identity
// there), and the difference gets a scale that spans the differences, not the positions.
void add_fix(const analysis::Facts& facts, const ir::Node& node, const analysis::QuantCall& call, Diagnostic& d) {
  std::string refusal;
  std::vector<Edit> reroots;
  for (int operand = 0; operand < 2 && refusal.empty(); ++operand) {
    auto edit = reroot_edit(facts, node, operand, &refusal);
    if (edit && !shadow_is_exact(facts, edit->shadow))
      refusal = "no automatic fix: the float input of " + describe_stubs(facts, call.output, &node) +
                " is itself computed from quantized values";
    else if (edit)
      reroots.push_back(*edit);
  }
  if (!refusal.empty() || node.outputs.size() != 1) {
    if (refusal.rfind("no automatic fix", 0) == 0) d.notes.push_back(refusal);
    return;
  }
  const std::string description = "compute the difference from the float input of " +
                                  describe_stubs(facts, call.output, &node) + " and quantize it";
  std::optional<Fix> fix = quant_points_where_read(facts, *node.output(), call, description, d);
  if (!fix) return;
  fix->edits.insert(fix->edits.begin(), reroots.begin(), reroots.end());
  d.fixes.push_back(*fix);
}

std::vector<Diagnostic> check(const analysis::Facts& facts) {
  std::vector<Diagnostic> out;
  for_each_model_node(facts, [&](const ir::Function& fn, const ir::Node& node) {
    if (!is_difference(node)) return;
    const analysis::QuantCall* call = common_quant_call(facts, node);
    if (call == nullptr) return;
    Diagnostic d = make_diagnostic(cancelling_difference_rule(), fn, node, message(facts, node, *call));
    add_fix(facts, node, *call, d);
    out.push_back(d);
  });
  return out;
}

}  // namespace

const Rule& cancelling_difference_rule() {
  static const Rule rule = [] {
    Rule r;
    r.id = "cancelling-difference";
    r.summary = "a difference of two parts of one quantized tensor, off by a whole step however small";
    r.severity = Severity::Warning;
    r.check = check;
    r.doc.what =
        "A subtraction of two parts of one tensor that one quant point of 8 bits or fewer (a QuantStub's fake quant "
        "in a traced QAT model, or a stub simulated with `--input --bits 8`) quantized: a trajectory made relative "
        "to its last point, `traj - traj[:, -1:]`, displacements `x[:, 1:] - x[:, :-1]`, points minus their "
        "group's centre, a box's width from its corners. At 16 bits a step is 1/65536 of the range and the loss is "
        "too small to matter, so int16 quant points are left alone.";
    r.doc.why =
        "Each part is rounded to the scale's grid, off by up to half a step; their difference is off by up to a "
        "whole step, however small the difference is. The scale spans the values as they came in (positions in a "
        "15 m scene: int8 steps of 0.12 m), while the model uses their differences (0.3 m of motion a frame): "
        "what is left of them is a few steps. The model's outputs, which often add the positions back, can keep a "
        "high SQNR while everything the network learned from is coarse (public trajectory models: 11-22 dB for "
        "the motion, 32-47 dB for the outputs).";
    r.doc.example =
        "    traj = self.quant(traj)\n"
        "    rel = traj - traj[:, -1:]       # off by up to a step of the scene's scale";
    r.doc.fix =
        "Compute the difference in float, before the stub, and quantize it with a stub of its own, whose scale "
        "then spans the differences:\n"
        "    rel = self.quant_rel(traj - traj[:, -1:])\n"
        "    traj = self.quant(traj)\n"
        "`--fix` does so: both parts are read from the stub's float input (the stub is the identity in float) and "
        "the difference gets a new QuantStub, or in a traced QAT model a clone of the stub's own FakeQuantize "
        "calibrated on `--input`, where it is read (where each reader reads it, for a difference read in several "
        "places: `dir[:, 1]` and `dir[:, 0]` of an angle). A difference whose parts are computed from quantized "
        "values on the way back gets a note instead.";
    r.doc.fix_safety =
        "Scripted models: safe (the float model computes the same difference, and the new QuantStub is calibrated "
        "by your own calibration). Traced QAT: safe with a clone of the model's FakeQuantize, which needs "
        "`--input` for its initial scale; a graph op where no module can hold the clone is unsafe. FX and "
        "converted models: no fix.";
    return r;
  }();
  return rule;
}

}  // namespace qlint::rules
