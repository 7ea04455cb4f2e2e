#include "analysis/float_shadow.h"

#include <algorithm>
#include <map>
#include <optional>

#include "analysis/constants.h"
#include "ir/display.h"
#include "ir/ops.h"
#include "ir/schema.h"
#include "ir/source_text.h"

namespace qlint::analysis {

namespace {

// Ops that change a value in place or write module state: a copy would not see (or would
// repeat) the change.
bool mutates(const ir::Node& n) { return ir::writes_anything_in_place(n); }

// A write in place through an alias of a value: `top` is the node in the value's own function
// (the write, or the call inside which a callee writes its parameter), `write` the write itself.
struct InPlaceWrite {
  const ir::Node* top = nullptr;
  const ir::Node* write = nullptr;
};

// Whether `n`'s output may be its first operand itself. A cast to another dtype never is:
// `floor(q).long()` is a new tensor, and `cell[~inside] = 0` into it writes nothing `floor(q)`
// holds (public round 18's sgan: a cast's fix was refused for a write after the cast).
bool may_alias_operand(const Facts& facts, const ir::Node& n) {
  if (!ir::may_alias_first_operand(n)) return false;
  if (!ir::is_cast(n) || n.inputs.empty() || n.output() == nullptr) return true;
  const ir::DType to = facts.dtype(n.output());
  // A value a quant point rounded is float whatever its recorded dtype (a trace without inputs).
  const ir::DType from = facts.quantized(n.inputs[0]) && facts.dtype(n.inputs[0]) == ir::DType::Unknown
                             ? ir::DType::Float32
                             : facts.dtype(n.inputs[0]);
  return from == ir::DType::Unknown || to == ir::DType::Unknown || from == to;
}

// Which element of a container `element` is, when `n` reads one under a known key (an unpack's
// output, a constant index, `d["coords"]`); "" when it is not known.
std::string element_key(const ir::Node& n, const ir::Value& element) {
  if (n.kind == "prim::TupleUnpack" || n.kind == "prim::ListUnpack")
    for (size_t i = 0; i < n.outputs.size(); ++i)
      if (n.outputs[i] == &element) return std::to_string(i);
  // A position counted from the end (`t[-1]`) may be any of them.
  if ((n.kind == "prim::TupleIndex" || n.kind == "aten::__getitem__") && n.inputs.size() == 2)
    if (std::string key = constant_key(n.inputs[1]); key.rfind('-', 0) != 0) return key;
  return "";
}

// The key `d["feat"] = f` stores under; "" when not known (also a position from the end).
std::string stored_key(const ir::Node& store) {
  std::string key = constant_key(store.inputs[1]);
  return key.rfind('-', 0) == 0 ? "" : key;
}

// A container the way up came through, and the key of the element it read there.
using ElementsRead = std::map<const ir::Value*, std::string>;

// Whether `user` reads (into `read`) or writes (`d["feat"] = f`) another element of a container
// the way up came through than the one it came from: a fused fake quant called twice returns its
// scale beside its output, and a write into the scale by the second call is no write into the
// output (public round 30: RetinaNet's head on every level got "changed in place by
// `aten::copy_`"); a store under another key of a dict (OpenPCDet's `batch_dict`) is none either.
bool other_element(const ElementsRead& elements, const ir::Value& container, const ir::Node& user,
                   const ir::Value* read) {
  auto it = elements.find(&container);
  if (it == elements.end() || user.inputs.empty() || user.inputs[0] != &container) return false;
  const std::string key = user.kind == "aten::_set_item" && user.inputs.size() == 3 ? stored_key(user)
                          : read != nullptr                                         ? element_key(user, *read)
                                                                                    : "";
  return !key.empty() && key != it->second;
}

// Every write in place through an alias of `v` (a view of it, the tensor it is a view of, a
// list holding it, a callee's parameter it is passed as) that a float twin of `v` would not see.
// `element`: the key of the element of container `v` that matters (a callee's parameter given the
// container the value was read from), "" for all of `v`.
void in_place_writes(const Facts& facts, const ir::Value* v, std::vector<InPlaceWrite>& out, int depth = 0,
                     const std::string& element = "") {
  const ir::Value* root = v;
  ElementsRead elements;
  if (!element.empty()) elements[v] = element;
  for (int i = 0; i < 256 && root->producer != nullptr && may_alias_operand(facts, *root->producer) &&
                  !root->producer->inputs.empty();
       ++i) {
    if (std::string key = element_key(*root->producer, *root); !key.empty()) elements[root->producer->inputs[0]] = key;
    root = root->producer->inputs[0];
  }
  // A stub returns its input itself in float: the twin of its output is that input, the same
  // tensor, so a write through either is in both.
  if (const QuantCall* call = facts.quant_call_producing(root))
    if (const QuantPoint* p = facts.quant_point(call->point); p != nullptr && p->identity_in_float) return;
  std::vector<const ir::Value*> pending = {root};
  std::set<const ir::Value*> seen = {root};
  while (!pending.empty() && out.size() < 1000) {
    const ir::Value* alias = pending.back();
    pending.pop_back();
    for (const ir::Node* user : alias->users) {
      for (size_t i = 0; i < user->inputs.size(); ++i)
        if (user->inputs[i] == alias && ir::writes_in_place(*user, i) &&
            !other_element(elements, *alias, *user, nullptr)) {
          out.push_back({user, user});
          break;
        }
      if (const ir::Function* callee = ir::callee_of(facts.model(), *user); callee != nullptr && depth < 8) {
        std::vector<ir::Value*> args = ir::call_arguments(*user);
        for (size_t i = 0; i < args.size() && i < callee->body.params.size(); ++i) {
          if (args[i] != alias) continue;
          std::vector<InPlaceWrite> inner;
          auto read = elements.find(alias);
          in_place_writes(facts, callee->body.params[i], inner, depth + 1, read != elements.end() ? read->second : "");
          for (const InPlaceWrite& w : inner) out.push_back({user, w.write});
        }
      }
      if (!may_alias_operand(facts, *user)) continue;
      // A tuple or list built of it holds it as one element: a read of another is no alias.
      if (user->kind == "prim::TupleConstruct" || user->kind == "prim::ListConstruct")
        for (size_t i = 0; i < user->inputs.size() && user->output() != nullptr; ++i)
          if (user->inputs[i] == alias) elements.emplace(user->output(), std::to_string(i));
      for (const ir::Value* out_value : user->outputs)
        if (seen.size() < 100000 && !other_element(elements, *alias, *user, out_value) && seen.insert(out_value).second)
          pending.push_back(out_value);
    }
  }
}

}  // namespace

// A float copy of a layer runs it a second time, in float, beside the quantized one: the fixed
// model takes its result from the float copy, and quantization no longer reaches it (public
// round 26: a scripted lane detector's regression head, copied to cast its float output).
std::string WeightedLayers::of(const ir::Node& n, int depth) {
  if (const ir::Value* weight = ir::named_operand(n, "weight");
      weight != nullptr && weight->producer != nullptr && weight->producer->kind == "prim::GetAttr")
    return "`" + n.kind + "`";
  const ir::Function* callee = depth < 8 ? ir::callee_of(facts_.model(), n) : nullptr;
  if (callee == nullptr) return "";
  auto known = inside_.find(callee);
  if (known == inside_.end()) {
    std::string inner;
    ir::for_each_node(callee->body, [&](const ir::Node& m) {
      if (inner.empty()) inner = of(m, depth + 1);
    });
    known = inside_.emplace(callee, std::move(inner)).first;
  }
  if (known->second.empty() || n.kind != "prim::CallMethod" || callee->module_path.empty()) return known->second;
  return "`self." + callee->module_path + "`";
}

namespace {

// Whether a call's body (and the bodies it calls) writes module state, quantizes or draws random
// numbers: copying the call would then do it twice, quantize the shadow again, or draw other
// numbers (farthest-point sampling from a random start). Such a callee's copy computes the twin
// beside the value instead (Planner::returned), from the same draw.
bool callee_is_pure(const Facts& facts, const ir::Function& callee, int depth = 0) {
  if (depth > 16) return false;
  bool pure = true;
  ir::for_each_node(callee.body, [&](const ir::Node& n) {
    if (!pure) return;
    if (n.kind == "prim::SetAttr" || facts.stub_call(n) == StubKind::Quant || facts.quant_call_producing(n.output()) ||
        ir::draws_random_numbers(n))
      pure = false;
    else if (const ir::Function* inner = ir::callee_of(facts.model(), n))
      pure = callee_is_pure(facts, *inner, depth + 1);
  });
  return pure;
}

class Planner {
 public:
  // `here`: where the refusals are said (the comparison); a line of another file is named with
  // its file ("prep.h:12").
  Planner(const Facts& facts, std::set<std::string> points, size_t inline_choice, ir::SourceLoc here)
      : facts_(facts), points_(std::move(points)), inline_choice_(inline_choice), here_(std::move(here)) {}

  // Walks back from `start` depth first with a work list, not recursion: the way back is as long
  // as the model (a 40,000-op FX chain, 20,000 branches in a row). Each step's visits run in the
  // order it asked for them, before the values pending from earlier steps, as a recursive walk
  // would take them.
  void walk(const ir::Value* start) {
    std::vector<const ir::Value*> pending = {start};
    while (!pending.empty() && refusal_.empty()) {
      const ir::Value* v = pending.back();
      pending.pop_back();
      asked_.clear();
      step(v);
      pending.insert(pending.end(), asked_.rbegin(), asked_.rend());
    }
  }

 private:
  // Asks the walk to visit `v` after the current step.
  void visit(const ir::Value* v) { asked_.push_back(v); }

  void step(const ir::Value* v) {
    if (!refusal_.empty() || !seen_.insert(v).second || !tainted(v)) return;
    if (const QuantCall* call = facts_.quant_call_producing(v)) return quant_call(*call);
    if (v->producer == nullptr) return parameter(v);
    const ir::Node& n = *v->producer;
    std::vector<InPlaceWrite> writes;
    in_place_writes(facts_, v, writes);
    for (const InPlaceWrite& w : writes) take_write(w);
    if (facts_.stub_call(n) == StubKind::DeQuant && n.inputs.size() >= 2) {
      plan_.identity_calls.insert(&n);
      return visit(n.inputs[1]);
    }
    if (n.kind == "prim::Loop" || n.kind == "prim::If") return block_output(n, v);
    if (const ir::Value* arg = handed_back(n, v)) {
      plan_.handed_back[v] = arg;
      return visit(arg);
    }
    if (const ir::Function* callee = ir::callee_of(facts_.model(), n); callee && !callee_is_pure(facts_, *callee))
      return returned(n, *callee, v);
    if (mutates(n)) {  // a value a write gives (`copy_` returns what it wrote into)
      take_write({&n, &n});
      if (plan_.writes.count(&n)) return;
    }
    if (std::string why = why_not_copyable(n); !why.empty()) return refuse(why);
    plan_.nodes.insert(&n);
    for (const ir::Value* in : n.inputs) visit(in);
  }

 public:
  // The calls from the stub's function up to the function the value comes back to, and from
  // there down to `consumer`'s, once the walk is done.
  void finish(const ir::Node& consumer) {
    if (!refusal_.empty()) return;
    // A twin copies how a value was computed: a write in place through an alias of it is in the
    // twin only when the node that makes it is copied too (an in-place ReLU on the way is).
    for (const ir::Node* write : plan_.writes)
      if (facts_.function_of(consumer) != facts_.function_of(*write))
        return refuse("a value on the way is written in place column by column (`" + write->kind + "`" +
                      on_line(*write) + ") in another function than the comparison's");
    for (const InPlaceWrite& w : writes_)
      if (!plan_.nodes.count(w.top))
        return refuse("a value on the way (or a view of it) is changed in place by `" + w.write->kind + "`" +
                      on_line(*w.write) + (w.top == w.write ? "" : " inside `" + w.top->kind + "`" + on_line(*w.top)) +
                      ", which a float copy of it would miss");
    if (nearest_ == nullptr) {
      refuse("the value does not come from a stub call qlint can follow");
      return;
    }
    plan_.stub_call = nearest_;
    const ir::Function* top = facts_.function_of(*plan_.stub_call);
    std::set<const ir::Function*, ir::CreationOrder> up;
    for (; top != nullptr && returning_.count(top); top = facts_.function_of(*returning_[top]))
      if (!up.insert(top).second) return refuse("the value comes back through a recursive call");
    if (up.size() != returning_.size()) {
      // A callee given the stub's quantized output computes the value (a backbone called on
      // `self.quant(img)`): its float copy would need the call made again on the float input.
      std::string callees;
      for (const auto& [callee, call] : returning_)
        if (!up.count(callee))
          callees += (callees.empty() ? "`" : ", `") + ir::source_function_name(callee->name) + "`" + on_line(*call);
      return refuse("the value comes out of " + callees +
                    ", which computes it from the quantized tensor it is given; a float copy would have to make "
                    "that call again on the float input, which qlint does not rewrite");
    }
    for (const auto& [callee, call] : returning_)
      if (call_into_.count(callee) || inlined_.count(callee))
        return refuse("the value passes into `" + ir::source_function_name(callee->name) +
                      "` and back out, which qlint does not rewrite");
    // An inlined call is no call any more: its callee's code runs in the caller.
    std::set<const ir::Function*, ir::CreationOrder> on_path;
    for (const ir::Function* fn = facts_.function_of(consumer); fn != top;) {
      const bool inlined = inlined_.count(fn) > 0;
      if (fn == nullptr || (!inlined && !call_into_.count(fn)) || !on_path.insert(fn).second)
        return refuse("the stub call is not in a caller of the function that compares");
      const ir::Node* call = inlined ? inlined_[fn] : call_into_[fn];
      if (!inlined) plan_.calls.insert(plan_.calls.begin(), call);
      fn = facts_.function_of(*call);
    }
    if (on_path.size() != call_into_.size() + inlined_.size())
      refuse("the value reaches the comparison through calls qlint cannot follow");
  }

  FloatShadowPlan plan() const { return plan_; }
  const std::string& refusal() const { return refusal_; }

 private:
  // A write in place into a fresh copy of quantized values, or into a view of it (`y =
  // x.clone(); y[:, 0] = x[:, 0] - x[:, 2] / 2`, YOLO's box conversion): the twin copies the
  // write too, right after it, into the twin's own copy (rewriter/edits/reroot.cpp), so the twin
  // sees every write the value sees, in the same order. Any other write is refused in finish().
  void take_write(const InPlaceWrite& w) {
    if (plan_.writes.count(w.write)) return;
    if (w.top != w.write || !writes_into_a_fresh_copy(*w.write)) return writes_.push_back(w);
    plan_.writes.insert(w.write);
    for (const ir::Value* in : w.write->inputs) visit(in);
  }

  // Whether `write` writes only its first operand, and that operand is a view chain of tainted
  // values (each gets a twin) down to a fresh tensor a copyable op made: then the twin's write
  // lands in the twin's own tensor, never in the original.
  bool writes_into_a_fresh_copy(const ir::Node& write) const {
    if (write.inputs.empty() || !write.blocks.empty() || !ir::writes_in_place(write, 0) ||
        ir::draws_random_numbers(write))
      return false;
    for (size_t i = 1; i < write.inputs.size(); ++i)
      if (ir::writes_in_place(write, i)) return false;
    const ir::Value* target = write.inputs[0];
    for (int depth = 0; depth < 64; ++depth) {
      const ir::Node* maker = target->producer;
      if (maker == nullptr || !tainted(target) || facts_.quant_call_producing(target) != nullptr) return false;
      if (!ir::may_alias_first_operand(*maker))
        return !mutates(*maker) && maker->blocks.empty() && maker->kind.rfind("prim::", 0) != 0 &&
               why_not_copyable(*maker).empty();
      if (mutates(*maker) || maker->inputs.empty()) return false;
      target = maker->inputs[0];
    }
    return false;
  }

  bool tainted(const ir::Value* v) const {
    for (const std::string& point : facts_.quant_sources(v))
      if (points_.count(point)) return true;
    return false;
  }

  void refuse(std::string why) {
    if (refusal_.empty()) refusal_ = std::move(why);
  }

  void quant_call(const QuantCall& call) {
    const QuantPoint* p = facts_.quant_point(call.point);
    if (p == nullptr || !p->identity_in_float)
      return refuse("the value is quantized by " + (p ? describe(*p) : "`" + call.point + "`") +
                    ", which changes it (a quantize op or an int8 kernel is not the identity in float), so no rewrite "
                    "can read a float value in its place; change the float model before it is converted");
    // Every other pass through a quant point is skipped too: another stub, or the same
    // FakeQuantize that FX QAT shares between an op and the clamp after it.
    if (nearest_ == nullptr) nearest_ = call.call;
    if (call.call != nearest_) plan_.identity_calls.insert(call.call);  // the identity in float
    plan_.quant_outputs[call.output] = call.call;
    plan_.call_inputs[call.call] = call.input;
    visit(call.input);
  }

  // An output of a loop or a branch: its twin is a new output, made from the twin of what each
  // block returns for it (a loop's output is its body parameter's last value).
  void block_output(const ir::Node& n, const ir::Value* v) {
    const size_t index = ir::output_index(*v);
    plan_.block_outputs.insert(v);
    if (n.kind == "prim::Loop") {
      if (n.blocks.size() != 1 || index + 1 >= n.blocks[0]->params.size())
        return refuse("a loop" + on_line(n) + " does not carry its outputs the way TorchScript does");
      return visit(n.blocks[0]->params[index + 1]);
    }
    for (const auto& block : n.blocks) {
      if (index >= block->returns.size()) return refuse("a branch" + on_line(n) + " does not return all its outputs");
      visit(block->returns[index]);
    }
  }

  // The output of a call into a callee that quantizes (a backbone holding the stub): the
  // callee's copy returns the twin of what it returns, beside it.
  // The argument a call hands back unchanged as `v`: its callee returns a parameter as it is, or a
  // copy of it that changes no value of a float tensor (`mask.float()` of a float mask, which a
  // trace then records as the mask itself, so the caller's later uses of the mask come out of the
  // call: public round 28's LED), directly or as an element of the tuple it returns.
  const ir::Value* handed_back(const ir::Node& n, const ir::Value* v) const {
    const ir::Node* call = &n;
    size_t element = 0;
    bool in_tuple = false;
    if (n.kind == "prim::TupleUnpack" && n.inputs.size() == 1 && n.inputs[0]->producer != nullptr) {
      call = n.inputs[0]->producer;
      element = ir::output_index(*v);
      in_tuple = true;
    }
    const ir::Function* callee = ir::callee_of(facts_.model(), *call);
    if (callee == nullptr || call->outputs.size() != 1 || callee->body.returns.size() != 1) return nullptr;
    const ir::Value* r = callee->body.returns[0];
    if (in_tuple) {
      if (r->producer == nullptr || r->producer->kind != "prim::TupleConstruct" ||
          r->producer->inputs.size() != n.outputs.size())
        return nullptr;
      r = r->producer->inputs[element];
    }
    for (int depth = 0; depth < 8 && r->producer != nullptr; ++depth) {
      const ir::Node& copy = *r->producer;
      if (copy.inputs.empty() || !keeps_float_values(copy)) return nullptr;
      r = copy.inputs[0];
    }
    if (r->producer != nullptr || r->param_of != &callee->body) return nullptr;
    const auto& params = callee->body.params;
    const auto i = static_cast<size_t>(std::find(params.begin(), params.end(), r) - params.begin());
    const std::vector<ir::Value*> args = ir::call_arguments(*call);
    return i < args.size() && args[i]->type.is_tensor() ? args[i] : nullptr;
  }

  // `contiguous`, `detach`, and a cast of a float tensor to float: the same values, and the same
  // tensor, so a write in place into it is a write into the argument, which the walk sees (a
  // `clone` is not: a write into the copy inside the callee would be missed by the twin).
  bool keeps_float_values(const ir::Node& n) const {
    if (n.kind == "aten::contiguous" || n.kind == "aten::detach") return true;
    if (!ir::is_cast(n) || n.output() == nullptr || !ir::may_alias_first_operand(n)) return false;
    // `x.to(torch.float, copy=True)` makes a copy, as `clone` does.
    if (const ir::Value* copy = ir::named_operand(n, "copy"); copy != nullptr && scalar_constant(copy) != 0.0)
      return false;
    const ir::Value* in = n.inputs[0];
    const bool float_in =
        facts_.dtype(in) == ir::DType::Float32 || (facts_.quantized(in) && facts_.dtype(in) == ir::DType::Unknown);
    return float_in && facts_.dtype(n.output()) == ir::DType::Float32;
  }

  void returned(const ir::Node& call, const ir::Function& callee, const ir::Value* v) {
    const size_t index = ir::output_index(*v);
    if (call.outputs.size() != 1 || index >= callee.body.returns.size())
      return refuse("the value comes out of `" + ir::source_function_name(callee.name) +
                    "`, which returns it in a way qlint cannot follow");
    if (auto [it, added] = returning_.try_emplace(&callee, &call); !added && it->second != &call)
      return refuse("the value comes out of `" + ir::source_function_name(callee.name) +
                    "`, which is called from several places");
    plan_.returned.insert(v);
    visit(callee.body.returns[index]);
  }

  // A value a loop carries (a parameter of its body, after the iteration number): its twin
  // starts from the twin of the value the loop starts with and goes on with the twin of what
  // the body returns for the next iteration.
  void loop_carried(const ir::Node& loop, const ir::Value* v) {
    const std::vector<ir::Value*>& params = loop.blocks[0]->params;
    const auto index = static_cast<size_t>(std::find(params.begin(), params.end(), v) - params.begin());
    if (index == 0 || index + 1 >= loop.inputs.size() || index >= loop.blocks[0]->returns.size())
      return refuse("a loop" + on_line(loop) + " does not carry the value the way TorchScript does");
    plan_.params.insert(v);
    visit(loop.inputs[index + 1]);  // the inputs are the trip count, the condition, then the carried values
    visit(loop.blocks[0]->returns[index]);
  }

  // A parameter of a callee: its shadow comes from the one call site's argument.
  void parameter(const ir::Value* v) {
    if (const ir::Node* owner = v->param_of ? v->param_of->owner : nullptr) {
      if (owner->kind == "prim::Loop" && owner->blocks.size() == 1) return loop_carried(*owner, v);
      return refuse("the value is a parameter of a `" + owner->kind + "` block" + on_line(*owner) +
                    ", which qlint does not rewrite");
    }
    const ir::Function* fn = function_with_parameter(v);
    if (fn == nullptr) return refuse("the value is a parameter qlint cannot find the function of");
    const std::vector<const ir::Node*>& sites = call_sites(*fn);
    const ir::Node* site = sites.size() == 1 ? sites[0] : call_to_inline(*fn, sites);
    if (site == nullptr)
      return refuse("`" + ir::source_function_name(fn->name) + "` is called from " + std::to_string(sites.size()) +
                    " places, and its parameter comes from each");
    const auto& params = fn->body.params;
    const auto index = static_cast<size_t>(std::find(params.begin(), params.end(), v) - params.begin());
    std::vector<ir::Value*> args = ir::call_arguments(*site);
    if (index >= args.size())
      return refuse("a call of `" + ir::source_function_name(fn->name) + "` passes fewer arguments than it takes");
    plan_.params.insert(v);
    (site == plan_.inline_call ? inlined_ : call_into_)[fn] = site;
    visit(args[index]);
  }

  // A function called from several places (a `@torch.jit.script` helper two heads share, the
  // forward of one encoder applied to two inputs) has one parameter for every call's argument:
  // the chosen call (the first by default) is inlined into its caller, so that there the
  // parameter is that argument (and a method's `self` the module it was called on). One such
  // call per plan: the next round of --fix takes the next call, or a fix has one plan per call.
  const ir::Node* call_to_inline(const ir::Function& fn, const std::vector<const ir::Node*>& sites) {
    if (auto it = inlined_.find(&fn); it != inlined_.end()) return it->second;
    if (plan_.inline_call != nullptr || inline_choice_ >= sites.size()) return nullptr;
    const ir::Node* site = sites[inline_choice_];
    if (site->kind != "prim::CallFunction" && site->kind != "prim::CallMethod") return nullptr;
    plan_.inline_call = site;
    plan_.inline_sites = sites.size();
    return site;
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

  // `d += t` (`%d2 = aten::add_(%d1, %t)`) where nothing but this write reads `d1`, and the twin
  // makes its own `d1` (a fresh result of a copied op, no view, no stub output, which in float
  // is the original tensor itself): the twin's copy writes only into the twin's `d1`, as the
  // original writes into its own, and nothing else sees either.
  // A chain of such writes (`dist += a; dist += b`) qualifies when its first value is fresh.
  bool writes_only_its_own_fresh_operand(const ir::Node& write) const {
    const ir::Node* n = &write;
    for (int depth = 0; depth < 256; ++depth) {
      if (n->inputs.empty() || n->outputs.size() != 1 || !ir::writes_in_place(*n, 0)) return false;
      for (size_t i = 1; i < n->inputs.size(); ++i)
        if (ir::writes_in_place(*n, i)) return false;
      const ir::Value* target = n->inputs[0];
      const ir::Node* maker = target->producer;
      if (target->users.size() != 1 || maker == nullptr || !maker->blocks.empty() || !tainted(target) ||
          facts_.quant_call_producing(target) != nullptr || maker->kind.rfind("prim::", 0) == 0)
        return false;
      // A cast returns its operand itself when nothing changes (`q.type_as(y)` of a float q).
      if (!mutates(*maker))
        return !ir::is_view_op(*maker) && !ir::may_alias_first_operand(*maker) && !ir::is_cast(*maker);
      n = maker;  // the value was itself written in place: its own operand must be fresh
    }
    return false;
  }

  // ", which writes into `buf` in place" (`torch.index_select(x, 0, idx, out=buf)`: before, the
  // note said "its operand", read as the compared value).
  std::string written_in_place(const ir::Node& n) const {
    for (size_t i = 0; i < n.inputs.size(); ++i)
      if (ir::writes_in_place(n, i)) {
        const std::string name = ir::written_name(facts_.model(), n.inputs[i]);
        if (!name.empty()) return ", which writes into `" + name + "` in place";
      }
    return ", which changes its operand in place";
  }

  std::string why_not_copyable(const ir::Node& n) const {
    const std::string what = "`" + n.kind + "`" + on_line(n);
    if (!n.blocks.empty()) return "the value comes out of " + what + ", which qlint does not rewrite";
    if (mutates(n) && !writes_only_its_own_fresh_operand(n))
      return "the value is made by " + what + written_in_place(n);
    if (n.kind == "prim::GetAttr") return "the value is read from module state written in forward (" + what + ")";
    if (ir::draws_random_numbers(n))
      return "the value is drawn at random by " + what + ", which a copy would draw anew";
    if (const std::string layer = weighted_layers_.of(n); !layer.empty())
      return "the value is computed by " + layer + on_line(n) +
             ", a layer with weights: a float copy of it would run the layer a second time, beside the quantized one";
    if (const ir::Function* callee = ir::callee_of(facts_.model(), n); callee && !callee_is_pure(facts_, *callee))
      return "the value comes out of `" + ir::source_function_name(callee->name) +
             "`, which writes module state or quantizes";
    if ((n.kind == "prim::CallMethod" || n.kind == "prim::CallFunction") && ir::callee_of(facts_.model(), n) == nullptr)
      return "the value comes out of a call qlint cannot see into (" + what + ")";
    return "";
  }

  const Facts& facts_;
  mutable WeightedLayers weighted_layers_{facts_};  // a cache: asking changes no answer
  std::set<std::string> points_;                    // the quant points the value passed, all the identity in float
  size_t inline_choice_;                            // which call of a function called from several places to inline
  FloatShadowPlan plan_;
  const ir::Node* nearest_ = nullptr;  // the first quant call on the way back
  // Callees in the order the front end made them: a refusal names the first, the same in every run.
  using ByCallee = std::map<const ir::Function*, const ir::Node*, ir::CreationOrder>;
  ByCallee call_into_;  // callee -> the call passing a twin in
  ByCallee returning_;  // callee -> the call getting a twin back
  ByCallee inlined_;    // callee -> its call inlined (plan_.inline_call)
  std::set<const ir::Value*> seen_;
  std::map<const ir::Function*, std::vector<const ir::Node*>> sites_;
  bool sites_indexed_ = false;
  std::string refusal_;
  std::vector<InPlaceWrite> writes_;     // through aliases of the values visited
  std::vector<const ir::Value*> asked_;  // the current step's visits, in order
  ir::SourceLoc here_;

  std::string on_line(const ir::Node& n) const {
    return n.loc.known() ? " on " + ir::line_seen_from(n.loc, here_) : "";
  }
};

}  // namespace

bool FloatShadowPlan::shadowed(const ir::Value* v) const {
  return quant_outputs.count(v) > 0 || params.count(v) > 0 || block_outputs.count(v) > 0 || returned.count(v) > 0 ||
         handed_back.count(v) > 0 ||
         (v->producer != nullptr &&
          (nodes.count(v->producer) > 0 || identity_calls.count(v->producer) > 0 || writes.count(v->producer) > 0));
}

bool FloatShadowPlan::crosses_blocks() const {
  if (!block_outputs.empty()) return true;
  return std::any_of(params.begin(), params.end(),
                     [](const ir::Value* p) { return p->param_of != nullptr && p->param_of->owner != nullptr; });
}

std::variant<FloatShadowPlan, std::string> plan_float_shadow(const Facts& facts, const ir::Node& consumer, int operand,
                                                             size_t inline_choice) {
  const ir::Value* v = consumer.inputs.at(static_cast<size_t>(operand));
  const auto& sources = facts.quant_sources(v);
  if (sources.empty()) return std::string("the value is not quantized");
  Planner planner(facts, {sources.begin(), sources.end()}, inline_choice, consumer.loc);
  planner.walk(v);
  planner.finish(consumer);
  if (!planner.refusal().empty()) return planner.refusal();
  return planner.plan();
}

}  // namespace qlint::analysis
