#include "rules/support.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <regex>
#include <set>

#include "analysis/float_shadow.h"
#include "analysis/quant_domain.h"
#include "rules/registry.h"

namespace qlint::rules {

std::string reroot_comparison_description(const std::string& stubs) {
  return "compare the float input of " + stubs + " instead, where the comparison is exact";
}

std::string listed(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return out;
}

std::string describe_stubs(const analysis::Facts& facts, const ir::Value* v, const ir::Node* at) {
  // Quant points of one display (a model a C++ program runs twice, a quantize call in a loop)
  // are named once, with each line: "`q` on lines 5 and 6"; a line of another file (a project
  // header's) with its file: "`q` on prep.h:5", "`q` on line 5 and prep.h:9".
  const ir::SourceLoc here = at != nullptr ? at->loc : v->producer != nullptr ? v->producer->loc : ir::SourceLoc{};
  std::vector<std::pair<std::string, std::vector<std::string>>> named;
  for (const auto& source : facts.quant_sources(v)) {
    const analysis::QuantPoint* point = facts.quant_point(source);
    const std::string display = point ? analysis::quoted_display(point->display) : "`" + source + "`";
    auto same = std::find_if(named.begin(), named.end(), [&](const auto& n) { return n.first == display; });
    if (same == named.end()) same = named.insert(named.end(), {display, {}});
    if (point && point->line > 0) {
      ir::SourceLoc line;
      line.file = here.file.empty() ? "" : point->file;
      line.line = point->line;
      same->second.push_back(ir::line_seen_from(line, here));
    }
  }
  std::vector<std::string> parts;
  for (const auto& [display, lines] : named) {
    const bool one_file =
        std::all_of(lines.begin(), lines.end(), [](const std::string& l) { return l.rfind("line ", 0) == 0; });
    std::vector<std::string> numbers;
    for (const std::string& line : lines) numbers.push_back(one_file ? line.substr(5) : line);
    parts.push_back(display + (lines.empty()       ? ""
                               : lines.size() == 1 ? " on " + lines[0]
                               : one_file          ? " on lines " + listed(numbers)
                                                   : " on " + listed(numbers)));
  }
  return listed(parts);
}

bool is_binary_arithmetic(const std::string& kind) {
  static const std::set<std::string> ops = {"mul", "add", "sub", "div", "rsub", "true_divide"};
  return (kind.rfind("aten::", 0) == 0 && ops.count(ir::base_op(kind)) > 0) || is_fused_multiply_add(kind);
}

bool is_fused_multiply_add(const std::string& kind) {
  static const std::set<std::string> ops = {"addmm", "addbmm", "baddbmm", "addcmul", "addcdiv"};
  return kind.rfind("aten::", 0) == 0 && ops.count(ir::base_op(kind)) > 0;
}

bool is_matrix_product(const std::string& kind) {
  static const std::set<std::string> ops = {"mm", "bmm", "matmul"};
  return kind.rfind("aten::", 0) == 0 && ops.count(ir::base_op(kind)) > 0;
}

std::string format_number(double v) {
  char buf[32];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.5g", v);
  }
  return buf;
}

std::string format_number_unlike(double v, double other) {
  if (v == other) return format_number(v);
  char mine[32], theirs[32];
  for (int digits = 5; digits < 17; ++digits) {
    std::snprintf(mine, sizeof mine, "%.*g", digits, v);
    std::snprintf(theirs, sizeof theirs, "%.*g", digits, other);
    if (std::string(mine) != theirs) break;
  }
  return mine;
}

ir::SourceLoc best_location(const ir::Node& node) {
  if (node.loc.known()) return node.loc;
  for (const ir::Value* out : node.outputs)
    for (const ir::Node* user : out->users)
      if (user->loc.known()) return user->loc;
  return node.loc;
}

namespace {

// The location of the first op `pick` accepts in the method a call runs: a traced module called
// twice has a method per call (forward, forward1), each op with the stack of its own call.
std::optional<ir::SourceLoc> callee_op_location(const analysis::Facts& facts, const ir::Node& call,
                                                const std::function<bool(const ir::Node&)>& pick) {
  const ir::Attr* callee = call.attr("callee");
  const ir::Function* fn =
      callee && callee->kind == ir::Attr::Kind::Str ? facts.model().find_function(callee->s) : nullptr;
  if (fn == nullptr) return std::nullopt;
  std::optional<ir::SourceLoc> loc;
  ir::for_each_node(fn->body, [&](const ir::Node& n) {
    if (!loc && n.loc.known() && pick(n)) loc = n.loc;
  });
  return loc;
}

std::optional<ir::SourceLoc> callee_quantize_location(const analysis::Facts& facts, const ir::Node& call) {
  return callee_op_location(facts, call, [](const ir::Node& n) { return analysis::quant_op_operands(n.kind); });
}

}  // namespace

ir::SourceLoc module_call_location(const analysis::Facts& facts, const ir::Node& call) {
  if (call.loc.known()) return call.loc;
  return callee_op_location(facts, call, [](const ir::Node&) { return true; }).value_or(call.loc);
}

ir::SourceLoc quant_call_location(const analysis::Facts& facts, const analysis::QuantCall& call) {
  if (call.call->loc.known()) return call.call->loc;
  if (auto loc = callee_quantize_location(facts, *call.call)) return *loc;
  const analysis::QuantPoint* point = facts.quant_point(call.point);
  if (point && point->node && point->node->loc.known()) return point->node->loc;
  return best_location(*call.call);
}

bool in_library_code(const ir::SourceLoc& loc) {
  for (const char* library :
       {"/dist-packages/torch/", "/site-packages/torch/", "/dist-packages/torchvision/", "/site-packages/torchvision/"})
    if (loc.file.find(library) != std::string::npos) return true;
  return loc.file == "<string>";
}

namespace {

// The calls of `fn` from other functions of the model, in model order.
std::vector<const ir::Node*> call_sites_of(const ir::Model& model, const ir::Function& fn) {
  std::vector<const ir::Node*> sites;
  for_each_model_node(model, [&](const ir::Function&, const ir::Node& n) {
    const ir::Attr* callee = n.attr("callee");
    if (callee != nullptr && callee->kind == ir::Attr::Kind::Str && callee->s == fn.name) sites.push_back(&n);
  });
  return sites;
}

// The (first) call of `fn` from another function of the model, if there is one.
const ir::Node* call_site_of(const ir::Model& model, const ir::Function& fn) {
  const std::vector<const ir::Node*> sites = call_sites_of(model, fn);
  return sites.empty() ? nullptr : sites.front();
}

}  // namespace

ir::SourceLoc user_location(const ir::Model& model, const ir::Node& node, ir::SourceLoc loc) {
  const ir::Node* at = &node;
  for (int depth = 0; in_library_code(loc) && depth < 16; ++depth) {
    const ir::Function* fn = model.function_of(*at);
    const ir::Node* site = fn ? call_site_of(model, *fn) : nullptr;
    if (site == nullptr) break;
    at = site;
    loc = best_location(*site);
  }
  return loc;
}

Diagnostic quant_call_diagnostic(const Rule& rule, const analysis::Facts& facts, const analysis::QuantCall& call,
                                 std::string message) {
  Diagnostic d = make_diagnostic(rule, *facts.function_of(*call.call), *call.call, std::move(message));
  d.loc = quant_call_location(facts, call);
  const analysis::QuantPoint* point = facts.quant_point(call.point);
  if (point != nullptr && point->observes_at_run_time)
    d.notes.push_back(analysis::describe(*point) +
                      " was saved with its observer on: at run time its scale follows the range of every input it "
                      "sees, so the model's scales are not fixed; save the model for deployment after "
                      "`model.apply(torch.ao.quantization.disable_observer)`");
  return d;
}

std::optional<Edit> reroot_edit(const analysis::Facts& facts, const ir::Node& consumer, int operand,
                                std::string* refusal, size_t inline_choice) {
  auto plan = analysis::plan_float_shadow(facts, consumer, operand, inline_choice);
  if (const auto* why = std::get_if<std::string>(&plan)) {
    // A model's outputs (C++) have no float value in the code: the finding says to fix the model.
    const bool model = static_cast<size_t>(operand) < consumer.inputs.size() &&
                       only_model_outputs(facts, consumer.inputs[static_cast<size_t>(operand)]);
    if (refusal != nullptr && !model) *refusal = "no automatic fix: " + *why;
    return std::nullopt;
  }
  Edit e;
  e.kind = Edit::Kind::Reroot;
  e.node = &consumer;
  e.operand = operand;
  e.shadow = std::get<analysis::FloatShadowPlan>(std::move(plan));
  e.stub_call = e.shadow.stub_call;
  e.inline_call = e.shadow.inline_call;  // a round of its own (rewriter::plan)
  return e;
}

// Whether the float shadow recomputes the value from float data alone: every operand it reads
// from outside the shadow carries no quantization. (The nearest stub's float input may itself
// come from quantized layers before it: then rerooting removes only the last rounding, and the
// comparison still flips, or flips elsewhere.)
bool shadow_is_exact(const analysis::Facts& facts, const analysis::FloatShadowPlan& plan) {
  auto reads_quantized = [&](const ir::Node* n) {
    for (const ir::Value* v : n->inputs)
      if (!plan.shadowed(v) && facts.in_quantized_domain(v)) return true;
    return false;
  };
  if (plan.stub_call != nullptr && reads_quantized(plan.stub_call)) return false;
  for (const ir::Node* n : plan.nodes)
    if (reads_quantized(n)) return false;
  for (const ir::Node* n : plan.identity_calls)
    if (reads_quantized(n)) return false;
  // A call handing a value back reads only that value (its callee may take quantized data too).
  for (const auto& [output, argument] : plan.handed_back)
    if (!plan.shadowed(argument) && facts.in_quantized_domain(argument)) return false;
  return true;
}

std::string fixed_copies(size_t fixed, size_t all) {
  return " (for " + std::to_string(fixed) + " of its " + std::to_string(all) + " copies on this line)";
}

std::string unfixed_copies_note(size_t unfixed, size_t all, const std::string& refusal) {
  const size_t reason = refusal.find(": ");  // after "no automatic fix"
  return "no fix for " + std::to_string(unfixed) + " of the " + std::to_string(all) +
         " copies on this line: " + (reason == std::string::npos ? refusal : refusal.substr(reason + 2));
}

namespace {

// A name for a new stub on an operand: the variable the user's source reads it from (`mask`
// in `mask[:, None]`), else the value's name in the graph (FX names its values after
// operators, `getitem_1`, so the source comes first).
std::string operand_name_hint(const ir::Model& model, const ir::Node& consumer, size_t operand) {
  static const std::regex leading_name(R"(^\(*([A-Za-z_]\w*))");
  if (auto loc = ir::operand_location(model, consumer, operand)) {
    std::string text = ir::source_text(model, *loc);
    std::smatch m;
    // Bounded: libstdc++'s regex recurses per matched character.
    if (text.size() <= 4096 && std::regex_search(text, m, leading_name) && m[1] != "self" && m[1] != "torch")
      return m[1];
  }
  std::string name = ir::written_name(model, consumer.inputs.at(operand));
  // A value whose only name a trace made up (`self.quant(mask.float())`'s `X`): the statement's.
  if (name.empty()) name = ir::assigned_name(model, consumer.inputs.at(operand));
  return name.empty() ? "operand" : name;
}

}  // namespace

namespace {

bool is_module_method(const ir::Function* fn) {
  return fn != nullptr && !fn->method.empty() && fn->method.find('.') == std::string::npos;
}

// The first call of a free function (or of a method of a TorchScript class that is no module,
// such as a box coder object) that a module method makes: where the function can be inlined so
// that its code reaches a module (ir::GraphRewriter::inline_call). A function called from
// several places gets one call inlined (with its own stub) per round of `--fix`, the others keep
// calling the function, until no call is left.
const ir::Node* first_call_from_a_method(const analysis::Facts& facts, const ir::Function& fn) {
  for (const ir::Node* site : call_sites_of(facts.model(), fn))
    if ((site->kind == "prim::CallFunction" || site->kind == "prim::CallMethod") &&
        is_module_method(facts.function_of(*site)))
      return site;
  return nullptr;
}

// The calls to inline, outermost first, for `fn`'s code to reach a module method: its first call
// from a method, else, for a function called only from other free functions (pose code's
// `transform_preds` called from `get_final_preds`), that caller's chain and then the call of
// `fn` in it. A few levels at most: each level inlined is code the user sees once in the
// archive and once more in the function left for its other callers.
std::vector<const ir::Node*> calls_to_reach_a_method(const analysis::Facts& facts, const ir::Function& fn,
                                                     int levels = 4) {
  if (const ir::Node* site = first_call_from_a_method(facts, fn)) return {site};
  if (levels <= 1) return {};
  for (const ir::Node* site : call_sites_of(facts.model(), fn)) {
    const ir::Function* caller = facts.function_of(*site);
    if (site->kind != "prim::CallFunction" || caller == nullptr || caller == &fn || is_module_method(caller)) continue;
    std::vector<const ir::Node*> chain = calls_to_reach_a_method(facts, *caller, levels - 1);
    if (chain.empty()) continue;
    chain.push_back(site);
    return chain;
  }
  return {};
}

// Whether `v` is computed from a parameter of `fn` other than its `self` (what its caller
// passes), within a few ops.
bool from_a_parameter(const ir::Function& fn, const ir::Value* v, int depth = 8) {
  if (v == nullptr || depth < 0) return false;
  const auto& params = fn.body.params;
  if (std::find(params.begin() + (params.empty() ? 0 : 1), params.end(), v) != params.end()) return true;
  if (v->producer == nullptr) return false;
  return std::any_of(v->producer->inputs.begin(), v->producer->inputs.end(),
                     [&](const ir::Value* in) { return from_a_parameter(fn, in, depth - 1); });
}

// A method called from several places (`self.with_pos_embed(tensor, pos)` for the queries and
// for the keys) runs one body for all of them: a stub in it, for a tensor its caller passes,
// would quantize every call's tensor with one scale, the reused stub the fix is to avoid. One
// call from a module method is inlined into its caller per round of `--fix`, with a stub of its
// own there; the last call left keeps the stub in the method.
const ir::Node* call_to_give_its_own_stub(const analysis::Facts& facts, const ir::Function& fn,
                                          const ir::Value* operand) {
  const std::vector<const ir::Node*> sites = call_sites_of(facts.model(), fn);
  if (sites.size() < 2 || !from_a_parameter(fn, operand)) return nullptr;
  for (const ir::Node* site : sites)
    if (site->kind == "prim::CallMethod" && is_module_method(facts.function_of(*site))) return site;
  return nullptr;
}

}  // namespace

std::string no_new_stub_reason(const analysis::Facts& facts, const ir::Node& consumer) {
  const ir::Function* fn = facts.function_of(consumer);
  if (facts.plain_stub_template().empty() || fn == nullptr || is_module_method(fn) ||
      !calls_to_reach_a_method(facts, *fn).empty())
    return "";
  // Called from nowhere a module method reaches within a few calls.
  return "no automatic fix: `" + fn->name.substr(fn->name.rfind('.') + 1) +
         "` is not called from any module's method within four calls, and a new stub needs a module to hold it; "
         "move the code into a method, or return the operand to the method and quantize it there";
}

std::optional<Edit> quantize_operand_edit(const analysis::Facts& facts, const ir::Node& consumer, int operand,
                                          bool cast_to_float) {
  std::string stub = facts.plain_stub_template();
  const ir::Function* fn = facts.function_of(consumer);
  if (stub.empty() || fn == nullptr) return std::nullopt;
  Edit e;
  if (!is_module_method(fn)) {
    // A free function (the `@torch.jit.script` helper of a utils module) has no `self`.
    std::vector<const ir::Node*> chain = calls_to_reach_a_method(facts, *fn);
    if (chain.empty()) return std::nullopt;
    e.inline_within.assign(chain.begin() + 1, chain.end());
    e.inline_call = chain.front();
  } else {
    e.inline_call = call_to_give_its_own_stub(facts, *fn, consumer.inputs.at(static_cast<size_t>(operand)));
  }
  const ir::Node* inline_call = e.inline_call;
  e.kind = Edit::Kind::QuantizeOperand;
  e.node = &consumer;
  e.operand = operand;
  e.cast_to_float = cast_to_float;
  e.template_stub = stub;
  e.new_stub = operand_name_hint(facts.model(), consumer, static_cast<size_t>(operand)) + "_quant";
  e.new_stub_owner = ir::python_self_module(facts.model(), inline_call ? *inline_call : consumer).value_or("");
  return e;
}

namespace {

// An in-graph fake quant (a traced FakeQuantize) of activations: a new one of its kind can stand
// beside it. A layer's weight fake quant rounds the weights (per channel, often) and is no
// template for an activation's (public round 19: a clone of `backbone.4.weight_fake_quant`).
const analysis::QuantPoint* in_graph_fake_quant(const analysis::Facts& facts, const std::string& id) {
  const analysis::QuantPoint* p = facts.quant_point(id);
  return p != nullptr && p->node != nullptr && p->identity_in_float && !analysis::is_weight_quantizer(id) ? p : nullptr;
}

// The module a FakeQuantize clone can hang from: the module whose method `node` is in.
std::optional<std::string> fake_quant_owner(const analysis::Facts& facts, const ir::Node& node) {
  const ir::Function* fn = facts.function_of(node);
  if (fn == nullptr || fn->method.empty() || fn->body.params.empty()) return std::nullopt;
  const ir::Value& self = *fn->body.params[0];
  if (self.type.kind != ir::Type::Kind::Module || self.type.name != fn->module_path) return std::nullopt;
  return fn->module_path;
}

Edit new_fake_quant(const analysis::Facts& facts, const analysis::QuantPoint& like, const ir::Node& node, int operand) {
  Edit e;
  e.kind = Edit::Kind::NewFakeQuant;
  e.node = &node;
  e.operand = operand;
  e.fake_quant.quant_min = like.quant_min;
  e.fake_quant.quant_max = like.quant_max;
  auto owner = fake_quant_owner(facts, node);
  // A FakeQuantize module's point is named by its module path; an op written into a graph's is not.
  if (owner && facts.model().find_module(like.id) != nullptr) {
    e.template_stub = like.id;
    e.new_stub_owner = *owner;
    e.new_stub = operand_name_hint(facts.model(), node, static_cast<size_t>(operand)) + "_fake_quant";
  }
  return e;
}

// A new fake quant of a 0/1 mask (a bool, or a float that is a cast bool) starts exact, at scale 1;
// of whole numbers, at scale 1 where their range fits (rewriter.cpp measures it). False when the
// template's range cannot hold a mask's 0 and 1.
bool start_exact(const analysis::Facts& facts, const ir::Value* value, bool bool_mask, Edit& e) {
  if (bool_mask || is_cast_of_bool(facts, value)) {
    // Zero point 0 and scale 1: q = x for x in {0, 1}, which every range of a real model holds.
    if (e.fake_quant.quant_min > 0 || e.fake_quant.quant_max < 1) return false;
    e.fake_quant.mask = true;
    e.fake_quant.scale = 1.0;
    e.fake_quant.scale_source = "exact for a 0/1 mask";
  } else if (holds_whole_numbers(facts, value)) {
    e.fake_quant.whole_numbers = true;
  } else {
    e.fake_quant.whole_if_observed = may_hold_whole_numbers(facts, value);
  }
  return true;
}

// Ops whose results are whole where their tensor operands are (scalars operands too: a constant
// must be whole, see below). Not listed means "may make fractions": the new quant point is then
// calibrated, never wrong, only not exact.
bool keeps_whole_numbers(const ir::Node& n) {
  static const std::set<std::string> kinds = {
      "add",       "sub",     "rsub",    "mul",   "neg",           "abs",           "relu", "clamp",
      "clip",      "maximum", "minimum", "max",   "min",           "amax",          "amin", "sum",
      "cumsum",    "cat",     "stack",   "where", "masked_fill",   "repeat",        "flip", "roll",
      "index_put", "scatter", "sort",    "topk",  "ListConstruct", "TupleConstruct"};
  return kinds.count(ir::base_op(n.kind)) > 0;
}

// Ops whose results are whole whatever their operands: rounding, a sign, constant fills.
bool makes_whole_numbers(const ir::Node& n) {
  static const std::set<std::string> kinds = {"round", "floor", "ceil", "trunc", "sign", "zeros_like", "ones_like"};
  return kinds.count(ir::base_op(n.kind)) > 0;
}

bool whole_constant(const ir::Value* v) {
  const auto values = analysis::constant_values(v);
  return values && std::all_of(values->begin(), values->end(), [](double x) { return x == std::floor(x); });
}

}  // namespace

bool may_hold_whole_numbers(const analysis::Facts& facts, const ir::Value* v) {
  std::vector<const ir::Value*> pending = {v};
  std::set<const ir::Value*> seen = {v};
  while (!pending.empty()) {
    const ir::Value* value = pending.back();
    pending.pop_back();
    if (seen.size() > 256) return false;
    const ir::Node* n = value->producer;
    if (ir::is_integral(facts.dtype(value)) || facts.dtype(value) == ir::DType::Bool) continue;
    if (n == nullptr) {  // a forward input, or what a method's callers pass it
      std::deque<const ir::Value*> arguments;
      add_values_across_calls(facts.model(), *value, arguments);
      for (const ir::Value* a : arguments)
        if (seen.insert(a).second) pending.push_back(a);
      continue;
    }
    if (n->kind == "prim::Constant") {
      if (!whole_constant(value)) return false;
      continue;
    }
    if (makes_whole_numbers(*n)) continue;
    if (ir::is_cast(*n) && !n->inputs.empty()) {
      if (seen.insert(n->inputs[0]).second) pending.push_back(n->inputs[0]);
      continue;
    }
    if (const ir::Value* returned = ir::returned_for(facts.model(), *value)) {
      if (seen.insert(returned).second) pending.push_back(returned);
      continue;
    }
    if (!ir::is_view_op(*n) && !keeps_whole_numbers(*n)) return false;
    // A view's other operands are sizes and indices; the ops above read each tensor operand.
    const size_t read = ir::is_view_op(*n) ? std::min<size_t>(1, n->inputs.size()) : n->inputs.size();
    for (size_t i = 0; i < read; ++i) {
      const ir::Value* in = n->inputs[i];
      const auto kind = in->type.kind;  // Other: a Scalar
      const bool data = kind == ir::Type::Kind::Tensor || kind == ir::Type::Kind::List ||
                        kind == ir::Type::Kind::Float || kind == ir::Type::Kind::Other;
      if (data && seen.insert(in).second) pending.push_back(in);
    }
  }
  return true;
}

bool holds_whole_numbers(const analysis::Facts& facts, const ir::Value* v) {
  constexpr int kMaxSelections = 8;
  for (int depth = 0; depth < kMaxSelections && v->producer != nullptr && !v->producer->inputs.empty(); ++depth) {
    const ir::Node& n = *v->producer;
    if (ir::is_cast(n)) return ir::is_integral(facts.dtype(n.inputs[0]));
    if (!ir::is_view_op(n)) return false;
    v = n.inputs[0];
  }
  return false;
}

std::optional<Edit> fake_quantize_operand_edit(const analysis::Facts& facts, const ir::Node& consumer, int operand,
                                               bool mask, const std::string& like_point) {
  if (operand < 0 || static_cast<size_t>(operand) >= consumer.inputs.size() || consumer.inputs.size() < 2)
    return std::nullopt;
  // The template: the one asked for, else a fake quant of another operand (the other side of
  // `*`, another item of the list `torch.cat` joins).
  const analysis::QuantPoint* like = like_point.empty() ? nullptr : in_graph_fake_quant(facts, like_point);
  for (size_t i = 0; i < consumer.inputs.size() && like == nullptr; ++i)
    if (i != static_cast<size_t>(operand))
      for (const auto& source : facts.quant_sources(consumer.inputs[i]))
        if ((like = in_graph_fake_quant(facts, source))) break;
  // Else the fake quant that quantizes the consumer's result: a QAT layer's output fake quant
  // (called after the layer by its forward hook), for the layer's unquantized input.
  for (const ir::Value* out : consumer.outputs)
    for (const ir::Node* user : out->users)
      for (const ir::Value* quantized : user->outputs)
        for (const auto& source : facts.quant_sources(quantized))
          if (like == nullptr) like = in_graph_fake_quant(facts, source);
  if (like == nullptr) return std::nullopt;
  Edit e = new_fake_quant(facts, *like, consumer, operand);
  e.cast_to_float = mask;
  if (!start_exact(facts, consumer.inputs[static_cast<size_t>(operand)], mask, e)) return std::nullopt;
  return e;
}

namespace {

// A Python name for a module path's last part: `proj` for `head.proj`, `embed_0` for `embed.0`
// (an nn.Sequential's item: `0_output_fake_quant` is no Python name; public round 16).
std::string identifier_for_module(const std::string& path) {
  const size_t last = path.rfind('.');
  const std::string name = last == std::string::npos ? path : path.substr(last + 1);
  if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) return name;
  return (last == std::string::npos ? std::string("module") : identifier_for_module(path.substr(0, last))) + "_" + name;
}

}  // namespace

namespace {

// The variable a stub call reads as the user wrote it (`pad` in `self.quant(pad.float())`,
// `pos_embed` in `self.quant(self.pos_embed)`), empty when its text is no such call. A trace
// names the stub's input after FakeQuantize's own parameter (`X`, `X3`), which the user never wrote.
std::string stub_argument_name(const analysis::Facts& facts, const analysis::QuantCall& call) {
  static const std::regex argument(R"(^[A-Za-z_][\w.]*\(\s*\(*(?:self\.)?([A-Za-z_]\w*))");
  const std::string text = ir::source_text(facts.model(), quant_call_location(facts, call));
  std::smatch m;
  // Bounded: libstdc++'s regex recurses per matched character.
  if (text.size() > 4096 || !std::regex_search(text, m, argument) || m[1] == "torch" || m[1] == "self") return "";
  return m[1];
}

}  // namespace

std::optional<Edit> fake_quantize_call_edit(const analysis::Facts& facts, const analysis::QuantCall& call) {
  const analysis::QuantPoint* like = in_graph_fake_quant(facts, call.point);
  if (like == nullptr || call.input == nullptr) return std::nullopt;
  const auto& inputs = call.call->inputs;
  auto it = std::find(inputs.begin(), inputs.end(), call.input);
  if (it == inputs.end()) return std::nullopt;
  Edit e = new_fake_quant(facts, *like, *call.call, static_cast<int>(it - inputs.begin()));
  e.fake_quant.replaces_call = true;
  if (const std::string argument = stub_argument_name(facts, call); !argument.empty() && e.creates_stub())
    e.new_stub = argument + "_fake_quant";
  // A mask through the data's stub (`self.quant(mask.float())`) gets its exact quant point: a
  // calibrated one rounds 1 to 0.996 in a symmetric int8 scheme. One that cannot stays calibrated.
  if (Edit exact = e; start_exact(facts, call.input, false, exact)) e = exact;
  // A module's output (a Linear called on a second tensor) has no name of its own: the new fake
  // quant is named after the module, `proj_output_fake_quant`.
  if (auto module = facts.output_quant_point_owner(call.point)) {
    e.fake_quant.output_of_module = *module;
    e.new_stub = identifier_for_module(*module) + "_output_fake_quant";
  }
  return e;
}

Fix new_fake_quant_fix(std::string description, const Edit& edit) {
  Fix f = safe_fix(std::move(description), {edit});
  if (edit.creates_stub()) {
    f.description += " `self." + std::string(kNewStubPlaceholder) + "`, a clone of the model's FakeQuantize `" +
                     edit.template_stub + "`";
  } else if (!edit.fake_quant.mask) {
    f.applicability = Applicability::Unsafe;
    f.description += " (a graph op that disable_fake_quant does not turn off)";
  }
  return f;
}

bool only_model_outputs(const analysis::Facts& facts, const ir::Value* v) {
  const auto& sources = facts.quant_sources(v);
  for (const std::string& id : sources)
    if (const analysis::QuantPoint* point = facts.quant_point(id); point == nullptr || !point->model_outputs)
      return false;
  return !sources.empty();
}

bool is_cast_of_bool(const analysis::Facts& facts, const ir::Value* v, int calls) {
  for (int depth = 0; v != nullptr && depth < 16; ++depth) {
    if (facts.is_zero_one_input(v)) return true;
    // A parameter (a padding mask passed into each layer, public round 23's Speech-Transformer):
    // what every call passes.
    if (v->producer == nullptr) {
      std::deque<const ir::Value*> arguments;
      if (calls > 0) add_values_across_calls(facts.model(), *v, arguments);
      return !arguments.empty() && std::all_of(arguments.begin(), arguments.end(), [&](const ir::Value* a) {
        return is_cast_of_bool(facts, a, calls - 1);
      });
    }
    const ir::Node& p = *v->producer;
    if ((p.kind == "aten::to" || p.kind == "aten::type_as") && !p.inputs.empty())
      return facts.dtype(p.inputs[0]) == ir::DType::Bool && facts.dtype(v) != ir::DType::Bool;
    if (!ir::is_view_op(p) || p.inputs.empty()) return false;
    v = p.inputs[0];
  }
  return false;
}

bool inserted_by_fx(const std::string& point) {
  const std::string name = point.substr(point.rfind('.') + 1);
  return name.rfind("activation_post_process_", 0) == 0;
}

namespace {

// A C++ quantize call the float shadow of a Reroot edit skips though the program runs it (its
// node's `runs_in_the_program`: a call that takes more than the tensor, such as LibTorch's
// `torch::fake_quantize_per_tensor_affine`, which quantizes in the float program too).
const ir::Attr* skipped_call_that_runs(const Edit& e) {
  if (e.kind != Edit::Kind::Reroot) return nullptr;
  if (e.stub_call != nullptr)
    if (const ir::Attr* runs = e.stub_call->attr("runs_in_the_program")) return runs;
  for (const ir::Node* call : e.shadow.identity_calls)
    if (const ir::Attr* runs = call->attr("runs_in_the_program")) return runs;
  return nullptr;
}

}  // namespace

Fix safe_fix(std::string description, std::vector<Edit> edits) {
  Fix f;
  f.applicability = Applicability::Safe;
  f.description = std::move(description);
  f.edits = std::move(edits);
  for (const Edit& e : f.edits)
    if (const ir::Attr* runs = skipped_call_that_runs(e); runs != nullptr && runs->kind == ir::Attr::Kind::Str) {
      f.applicability = Applicability::Unsafe;
      f.description += " (unsafe: `" + runs->s + "` quantizes in the program too, so the value before it differs)";
      break;
    }
  return f;
}

Diagnostic make_diagnostic(const Rule& rule, const ir::Function& fn, const ir::Node& node, std::string message) {
  Diagnostic d;
  d.rule = rule.id;
  d.severity = rule.severity;
  d.message = std::move(message);
  d.function = &fn;
  d.node = &node;
  d.loc = best_location(node);
  return d;
}

void add_values_across_calls(const ir::Model& model, const ir::Value& v, std::deque<const ir::Value*>& pending) {
  if (v.producer != nullptr) {
    if (const ir::Value* returned = ir::returned_for(model, v)) pending.push_back(returned);
    return;
  }
  if (v.param_of == nullptr) return;
  const auto& params = v.param_of->params;
  const size_t index = static_cast<size_t>(std::find(params.begin(), params.end(), &v) - params.begin());
  for_each_model_node(model, [&](const ir::Function&, const ir::Node& n) {
    const ir::Function* callee = ir::callee_of(model, n);
    if (callee == nullptr || &callee->body != v.param_of) return;
    const std::vector<ir::Value*> arguments = ir::call_arguments(n);
    if (index < arguments.size()) pending.push_back(arguments[index]);
  });
}

std::optional<std::vector<double>> constant_values_across_calls(const ir::Model& model, const ir::Value* v) {
  if (auto values = analysis::constant_values(v)) return values;
  constexpr size_t kMaxPassed = 64;  // values followed up the calls
  std::deque<const ir::Value*> pending;
  std::set<const ir::Value*> seen = {v};
  if (v->param_of != nullptr) add_values_across_calls(model, *v, pending);
  if (pending.empty()) return std::nullopt;  // forward's own input, or no call
  std::vector<double> passed;
  for (; !pending.empty(); pending.pop_front()) {
    const ir::Value* argument = pending.front();
    if (!seen.insert(argument).second) continue;
    if (auto values = analysis::constant_values(argument)) {
      passed.insert(passed.end(), values->begin(), values->end());
      continue;
    }
    const size_t before = pending.size();
    if (argument->param_of != nullptr && seen.size() < kMaxPassed) add_values_across_calls(model, *argument, pending);
    if (pending.size() == before) return std::nullopt;
  }
  return passed;
}

void for_each_write_into(const ir::Value& v, const std::function<void(const ir::Node&)>& visit, int depth) {
  constexpr int kMaxViewDepth = 4;
  for (const ir::Node* user : v.users)
    for (size_t i = 0; i < user->inputs.size(); ++i) {
      if (user->inputs[i] != &v) continue;
      if (ir::writes_in_place(*user, i))
        visit(*user);
      else if (i == 0 && depth < kMaxViewDepth && user->outputs.size() == 1 && ir::may_alias_first_operand(*user))
        for_each_write_into(*user->outputs[0], visit, depth + 1);
    }
}

}  // namespace qlint::rules
