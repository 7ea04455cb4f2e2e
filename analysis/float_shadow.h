// The float shadow of a quantized value: the same computation with one stub taken out, so that a
// comparison or a mask reads exact float values. In the float model a stub is the identity, so
// the shadow equals the value bit for bit; only the quantized model changes.
//
// The shadow starts at the stub call's float input and follows the value's computation through
// any op, through other stubs (the identity in float), and into child modules and free
// functions: a parameter's shadow is the caller's argument's, passed in as an extra argument
// of a copy of the callee (or, for a free function called from several places, the twin of the
// argument of one call, inlined first). A value a loop carries gets a float twin carried beside it, and a
// value out of a branch a float twin out of each block. This planner finds which values to
// recompute, or says why it cannot; rewriter/edits/reroot.cpp carries the plan out.
#pragma once

#include <map>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "analysis/facts.h"
#include "ir/ir.h"

namespace qlint::analysis {

struct FloatShadowPlan {
  const ir::Node* stub_call = nullptr;  // the nearest call of the quant point; its input stands in for its output
  // The tensors quant calls give (QuantCall::output: a call's output, or the element a trace
  // unpacks from a FakeQuantize call that hands its observer's state on), each with its call,
  // whose tensor argument is the twin: the stub call's, and every other one on the way.
  std::map<const ir::Value*, const ir::Node*> quant_outputs;
  // The tensor each quant or DeQuantStub call on the way passes through (QuantCall::input: not
  // always its first argument), which stands in for its output in float.
  std::map<const ir::Node*, const ir::Value*> call_inputs;
  const ir::Value* passed_through(const ir::Node& call) const {
    auto it = call_inputs.find(&call);
    return it != call_inputs.end() ? it->second : call.inputs.at(1);
  }
  // The calls from the function the value comes back to (the stub call's, or a caller of the
  // callees in `returned`) down to the consumer's, outermost first: each callee gets a copy
  // that takes the float values it needs as extra parameters.
  std::vector<const ir::Node*> calls;
  // What is recomputed: nodes copied with float operands, stub and DeQuantStub calls on the way
  // (skipped: the identity in float), callee parameters that become extra ones, loop body
  // parameters (loop-carried values) that get a carried twin, and outputs of loops and
  // branches that get a twin output.
  std::set<const ir::Node*, ir::CreationOrder> nodes;
  std::set<const ir::Node*, ir::CreationOrder> identity_calls;
  // A call's output that is its argument unchanged in float (a callee handing a parameter back,
  // float_shadow.cpp): its twin is the argument's.
  std::map<const ir::Value*, const ir::Value*> handed_back;
  // Writes in place into a fresh copy on the way (`y = x.clone(); y[:, 0] = ...`), in the
  // consumer's function: each is copied right after itself, into the twin's copy.
  std::set<const ir::Node*, ir::CreationOrder> writes;
  std::set<const ir::Value*> params;
  std::set<const ir::Value*> block_outputs;
  // Outputs of calls into callees that quantize (the stub is inside): the callee's copy returns
  // their twins beside them.
  std::set<const ir::Value*> returned;
  // A call of a free function that is called from several places, through whose parameter the
  // value enters: the callee's parameter has one float counterpart per call site, so this call
  // is inlined into its caller first, and the parameter's twin is this call's argument's. The
  // other calls keep the function; each gets its own fix in a later round of --fix.
  const ir::Node* inline_call = nullptr;
  size_t inline_sites = 0;  // how many calls the inlined function has (plan_float_shadow's inline_choice)

  bool crosses_calls() const { return !calls.empty(); }
  // Whether the shadow passes through a loop or a branch.
  bool crosses_blocks() const;
  // Whether the shadow of `v` differs from `v` itself (it depends on the stub's output).
  bool shadowed(const ir::Value* v) const;
};

// The layers with weights nodes compute with. Each callee's answer is remembered: a walk asks of
// many calls into the same few bodies (a truncating cast's way back through a traced backbone).
class WeightedLayers {
 public:
  explicit WeightedLayers(const Facts& facts) : facts_(facts) {}

  // An op whose `weight` operand is module state (`aten::linear`, `aten::conv2d`,
  // `aten::embedding`, a norm's scale), or a call whose body (or a body it calls) has one; named
  // as messages say it (`self.fc`, or the op). Empty for anything else.
  std::string of(const ir::Node& n, int depth = 0);

 private:
  const Facts& facts_;
  std::map<const ir::Function*, std::string> inside_;  // callee -> the first layer in its body
};

// The plan for operand `operand` of `consumer`, or why that value has no float shadow. Every
// stub the value passed is taken out (each is the identity in float), so the shadow is the
// float model's own value.
// `inline_choice` picks which call of a function called from several places is inlined (in the
// order of FloatShadowPlan::inline_sites), so that a fix can take each call in turn.
std::variant<FloatShadowPlan, std::string> plan_float_shadow(const Facts& facts, const ir::Node& consumer, int operand,
                                                             size_t inline_choice = 0);

}  // namespace qlint::analysis
