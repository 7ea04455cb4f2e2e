#include "analysis/float_shadow.h"

#include <algorithm>
#include <map>

#include "ir/ops.h"

namespace qlint::analysis {

namespace {

std::string on_line(const ir::Node& n) { return n.loc.known() ? " on line " + std::to_string(n.loc.line) : ""; }

// Ops that change a value in place or write module state: a copy would not see (or would
// repeat) the change.
bool mutates(const ir::Node& n) {
  static const std::set<std::string> stores = {"prim::SetAttr", "aten::append", "aten::_set_item", "aten::insert",
                                               "aten::extend",  "aten::copy_",  "aten::index_put_"};
  if (stores.count(n.kind)) return true;
  const std::string op = n.kind.substr(n.kind.find("::") == std::string::npos ? 0 : n.kind.find("::") + 2);
  return op.size() > 1 && op.back() == '_' && op[op.size() - 2] != '_';
}

// Whether a call's body (and the bodies it calls) writes module state or quantizes: copying the
// call would then do it twice, or quantize the shadow again.
bool callee_is_pure(const Facts& facts, const ir::Function& callee, int depth = 0) {
  if (depth > 16) return false;
  bool pure = true;
  ir::for_each_node(callee.body, [&](const ir::Node& n) {
    if (!pure) return;
    if (n.kind == "prim::SetAttr" || facts.stub_call(n) == StubKind::Quant || facts.quant_call_producing(n.output()))
      pure = false;
    else if (const ir::Function* inner = ir::callee_of(facts.model(), n))
      pure = callee_is_pure(facts, *inner, depth + 1);
  });
  return pure;
}

class Planner {
 public:
  Planner(const Facts& facts, std::string point) : facts_(facts), point_(std::move(point)) {}

  void visit(const ir::Value* v) {
    if (!refusal_.empty() || !seen_.insert(v).second || !tainted(v)) return;
    if (const QuantCall* call = facts_.quant_call_producing(v)) return quant_call(*call);
    if (v->producer == nullptr) return parameter(v);
    const ir::Node& n = *v->producer;
    for (const ir::Node* user : v->users)
      if (mutates(*user)) return refuse("the value is changed in place by `" + user->kind + "`" + on_line(*user));
    if (facts_.stub_call(n) == StubKind::DeQuant && n.inputs.size() >= 2) {
      plan_.identity_calls.insert(&n);
      return visit(n.inputs[1]);
    }
    if (std::string why = why_not_copyable(n); !why.empty()) return refuse(why);
    plan_.nodes.insert(&n);
    for (const ir::Value* in : n.inputs) visit(in);
  }

  // The calls from the stub's function down to `consumer`'s, once the walk is done.
  void finish(const ir::Node& consumer) {
    if (!refusal_.empty()) return;
    if (stubs_.empty()) {
      refuse("the value does not come from a stub call qlint can follow");
      return;
    }
    plan_.stub_call = nearest_;
    const ir::Function* stub_fn = facts_.function_of(*plan_.stub_call);
    std::set<const ir::Function*> on_path;
    for (const ir::Function* fn = facts_.function_of(consumer); fn != stub_fn;
         fn = facts_.function_of(*call_into_[fn])) {
      if (fn == nullptr || !call_into_.count(fn) || !on_path.insert(fn).second) {
        refuse("the stub call is not in a caller of the function that compares");
        return;
      }
      plan_.calls.insert(plan_.calls.begin(), call_into_[fn]);
    }
    if (on_path.size() != call_into_.size())
      refuse("the value reaches the comparison through calls qlint cannot follow");
  }

  FloatShadowPlan plan() const { return plan_; }
  const std::string& refusal() const { return refusal_; }

 private:
  bool tainted(const ir::Value* v) const { return facts_.quant_sources(v).count(point_) > 0; }

  void refuse(std::string why) {
    if (refusal_.empty()) refusal_ = std::move(why);
  }

  void quant_call(const QuantCall& call) {
    const QuantPoint* p = facts_.quant_point(call.point);
    if (p == nullptr || !p->identity_in_float)
      return refuse("the value is quantized by " + (p ? describe(*p) : "`" + call.point + "`") +
                    ", which changes it (a quantize op or an int8 kernel is not the identity in float), so no rewrite "
                    "can read a float value in its place; change the float model before it is converted");
    // FX QAT shares one FakeQuantize between an op and the clamp after it: the value may pass
    // the same quant point more than once, and the shadow skips every pass.
    if (call.point == point_) {
      if (stubs_.empty()) nearest_ = call.call;
      stubs_.insert(call.call);
    }
    if (call.call != nearest_) plan_.identity_calls.insert(call.call);  // the identity in float
    visit(call.input);
  }

  // A parameter of a callee: its shadow comes from the one call site's argument.
  void parameter(const ir::Value* v) {
    const ir::Function* fn = function_with_parameter(v);
    if (fn == nullptr) return refuse("the value is carried by a loop or a branch, which qlint does not rewrite yet");
    const std::vector<const ir::Node*>& sites = call_sites(*fn);
    if (sites.size() != 1)
      return refuse("`" + fn->name + "` is called from " + std::to_string(sites.size()) +
                    " places, and its parameter comes from each");
    const auto& params = fn->body.params;
    const auto index = static_cast<size_t>(std::find(params.begin(), params.end(), v) - params.begin());
    std::vector<ir::Value*> args = ir::call_arguments(*sites[0]);
    if (index >= args.size()) return refuse("a call of `" + fn->name + "` passes fewer arguments than it takes");
    plan_.params.insert(v);
    call_into_[fn] = sites[0];
    visit(args[index]);
  }

  const ir::Function* function_with_parameter(const ir::Value* v) const {
    for (const auto& f : facts_.model().functions)
      if (std::find(f->body.params.begin(), f->body.params.end(), v) != f->body.params.end()) return f.get();
    return nullptr;
  }

  // Every call of `callee` in the model; the model's calls are indexed once per plan.
  const std::vector<const ir::Node*>& call_sites(const ir::Function& callee) {
    if (!sites_indexed_) {
      for (const auto& f : facts_.model().functions)
        ir::for_each_node(f->body, [&](const ir::Node& n) {
          if (const ir::Function* called = ir::callee_of(facts_.model(), n)) sites_[called].push_back(&n);
        });
      sites_indexed_ = true;
    }
    static const std::vector<const ir::Node*> none;
    auto it = sites_.find(&callee);
    return it == sites_.end() ? none : it->second;
  }

  std::string why_not_copyable(const ir::Node& n) const {
    const std::string what = "`" + n.kind + "`" + on_line(n);
    if (!n.blocks.empty())
      return "the value comes out of a loop or a branch (" + what + "), which qlint does not rewrite yet";
    if (mutates(n)) return "the value is made by " + what + ", which changes its operand in place";
    if (n.kind == "prim::GetAttr") return "the value is read from module state written in forward (" + what + ")";
    if (const ir::Function* callee = ir::callee_of(facts_.model(), n); callee && !callee_is_pure(facts_, *callee))
      return "the value comes out of `" + callee->name + "`, which writes module state or quantizes";
    if ((n.kind == "prim::CallMethod" || n.kind == "prim::CallFunction") && ir::callee_of(facts_.model(), n) == nullptr)
      return "the value comes out of a call qlint cannot see into (" + what + ")";
    return "";
  }

  const Facts& facts_;
  std::string point_;
  FloatShadowPlan plan_;
  std::set<const ir::Node*> stubs_;
  const ir::Node* nearest_ = nullptr;  // the first call of the quant point on the way back
  std::map<const ir::Function*, const ir::Node*> call_into_;
  std::set<const ir::Value*> seen_;
  std::map<const ir::Function*, std::vector<const ir::Node*>> sites_;
  bool sites_indexed_ = false;
  std::string refusal_;
};

}  // namespace

bool FloatShadowPlan::shadowed(const ir::Value* v) const {
  if (stub_call != nullptr && v == stub_call->output()) return true;
  return params.count(v) > 0 ||
         (v->producer != nullptr && (nodes.count(v->producer) > 0 || identity_calls.count(v->producer) > 0));
}

std::variant<FloatShadowPlan, std::string> plan_float_shadow(const Facts& facts, const ir::Node& consumer,
                                                             int operand) {
  const ir::Value* v = consumer.inputs.at(static_cast<size_t>(operand));
  const auto& sources = facts.quant_sources(v);
  if (sources.size() != 1) return std::string("the value is quantized by several quant points");
  Planner planner(facts, *sources.begin());
  planner.visit(v);
  planner.finish(consumer);
  if (!planner.refusal().empty()) return planner.refusal();
  return planner.plan();
}

}  // namespace qlint::analysis
