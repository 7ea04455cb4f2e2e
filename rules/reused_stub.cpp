// reused-stub: one QuantStub module applied to two different tensors. Both get the scale
// calibrated over both ranges, so the smaller-range tensor loses precision (or a 0/1 mask
// rounds to 0).
#include <algorithm>
#include <cctype>
#include <deque>
#include <map>
#include <optional>

#include "analysis/comparisons.h"
#include "analysis/constants.h"
#include "ir/ops.h"
#include "ir/schema.h"
#include "ir/source_text.h"
#include "ir/spelling.h"
#include "rules/registry.h"
#include "rules/support.h"

namespace qlint::rules {

namespace {

// The quant point a call applies, as messages name it (`self.quant`).
std::string point_name(const analysis::Facts& facts, const analysis::QuantCall& call) {
  const analysis::QuantPoint* point = facts.quant_point(call.point);
  return point ? analysis::describe(*point) : "`" + call.point + "`";
}

// Whether the statement at `loc` calls the quant point's module twice (`self.emb(a) +
// self.emb(b * 10.0)`, `self.g(self.quant(a), self.quant(b))`): a trace gives both calls the
// statement's location, as it gives a loop's copies, but the text tells them apart (public round
// 18: nothing was reported on one line, the same calls on two lines were).
bool called_twice_in_statement(const analysis::Facts& facts, const analysis::QuantCall& call,
                               const ir::SourceLoc& loc) {
  const analysis::QuantPoint* point = facts.quant_point(call.point);
  const std::string display = point != nullptr ? point->display : call.point;  // "self.child.emb"
  const std::string call_text = "self." + display.substr(display.rfind('.') + 1) + "(";
  const std::string text = ir::source_text(facts.model(), loc);
  const size_t first = text.find(call_text);
  return first != std::string::npos && text.find(call_text, first + 1) != std::string::npos;
}

std::string first_use(const analysis::Facts& facts, const analysis::QuantCall& first, const analysis::QuantCall& call) {
  ir::SourceLoc loc = quant_call_location(facts, first);
  if (!loc.known()) return "";
  ir::SourceLoc here = quant_call_location(facts, call);
  // A loop the trace unrolled (or a line that runs twice) applies it on the same line again,
  // unless the line itself applies it twice (`self.g(self.quant(a), self.quant(b))`).
  if (here.file == loc.file && here.line == loc.line)
    return called_twice_in_statement(facts, call, here) ? " (first applied earlier on this line)"
                                                        : " (again on this line: a loop or a repeated call)";
  return " (first applied on " + ir::line_seen_from(loc, here) + ")";
}

// Whether `block` is `loop_body` or nested in it (an `if` inside the loop).
bool within(const ir::Block* block, const ir::Block* loop_body) {
  for (int depth = 0; block != nullptr && depth < 64; ++depth) {
    if (block == loop_body) return true;
    block = block->owner != nullptr ? block->owner->owner : nullptr;
  }
  return false;
}

// An element of a list (`for f in feats`), seen through views: the tensors of a list are as a
// rule different things (the levels of a feature pyramid). A time step of one tensor, or a
// loop's recurrent state, keeps one distribution, and one stub for all steps is the usual way.
bool list_element(const ir::Value* v) {
  for (int depth = 0; v != nullptr && v->producer != nullptr && depth < 16; ++depth) {
    const ir::Node& p = *v->producer;
    if (p.kind == "aten::__getitem__" && !p.inputs.empty() && p.inputs[0]->type.kind == ir::Type::Kind::List)
      return true;
    if (!ir::is_view_op(p) || p.inputs.empty()) return false;
    v = p.inputs[0];
  }
  return false;
}

// The `for` loop over a list that runs the call on the list's elements: a new tensor each
// iteration, all under the stub's one scale.
const ir::Node* loop_applying_to_new_tensors(const analysis::QuantCall& call) {
  if (call.input == nullptr || !list_element(call.input)) return nullptr;
  for (const ir::Block* b = call.call->owner; b != nullptr && b->owner != nullptr; b = b->owner->owner) {
    if (b->owner->kind != "prim::Loop") continue;
    const ir::Block* defined_in = call.input->producer ? call.input->producer->owner : call.input->param_of;
    return within(defined_in, b) ? b->owner : nullptr;
  }
  return nullptr;
}

// How often a `for` loop runs when the model fixes it: a constant trip count, or the length of
// a list literal the loop iterates (`for name in ["p3", "p4", "p5"]`, `for f in [c3, c4, c5]`)
// that nothing appends to. A `for` loop's condition is the constant true.
std::optional<int64_t> fixed_trip_count(const ir::Node& loop) {
  constexpr int64_t kMaxTrips = 64;  // unrolled copies of the body; more is not worth the graph
  if (loop.inputs.size() < 2 || loop.blocks.size() != 1 || loop.blocks[0]->returns.empty()) return std::nullopt;
  auto always = [](const ir::Value* v) { return analysis::scalar_constant(v) == 1.0; };
  if (!always(loop.inputs[1]) || !always(loop.blocks[0]->returns[0])) return std::nullopt;
  std::optional<int64_t> trips;
  if (auto c = analysis::scalar_constant(loop.inputs[0])) trips = static_cast<int64_t>(*c);
  const ir::Node* len = loop.inputs[0]->producer;
  if (!trips && len && len->kind == "aten::len" && !len->inputs.empty()) {
    const ir::Node* list = len->inputs[0]->producer;
    const bool written = list && std::any_of(list->output()->users.begin(), list->output()->users.end(),
                                             [](const ir::Node* u) { return ir::writes_anything_in_place(*u); });
    if (list && list->kind == "prim::ListConstruct" && list->output() && !written)
      trips = static_cast<int64_t>(list->inputs.size());
  }
  if (!trips || *trips < 1 || *trips > kMaxTrips) return std::nullopt;
  return trips;
}

Edit unroll_edit(const ir::Node& loop, int64_t trips) {
  Edit e;
  e.kind = Edit::Kind::UnrollLoop;
  e.node = &loop;
  e.trips = trips;
  return e;
}

void report_loop_reuse(const analysis::Facts& facts, const analysis::QuantCall& call, const ir::Node& loop,
                       std::vector<Diagnostic>& out) {
  const std::string name = point_name(facts, call);
  Diagnostic d = quant_call_diagnostic(
      reused_stub_rule(), facts, call,
      name +
          " is applied in a loop to each tensor of a list; all of them share one scale calibrated "
          "over all their ranges, so those with a smaller range lose precision; give each tensor " +
          ir::spelling(facts.model()).its_own_stub + " (a list of stubs indexed like the loop)");
  // The finding is the loop's: once unrolled, the calls on its line are a finding of their own
  // (a clone per iteration), which the fixer must not take for this one.
  d.node = &loop;
  if (auto trips = fixed_trip_count(loop))
    d.fixes.push_back(safe_fix("unroll the loop (" + std::to_string(*trips) +
                                   " iterations), so that each iteration's call can get a clone of the stub",
                               {unroll_edit(loop, *trips)}));
  else
    d.notes.push_back(
        "no automatic fix: the loop's trip count is not fixed by the model, and a stub per iteration "
        "needs a list of stubs in the model's __init__");
  out.push_back(d);
}

// Whether two statements read the same, spaces aside: one computation written twice (`e =
// self.emb(track[: t + 1])` in both branches of `if t == 0: ... else: ...` in a time loop), which
// quantizes one kind of value as a loop's one line does (public round 20's STAR: reported from two
// branches, "Found 0 problems" with the call on one line).
bool reads_the_same(const ir::Model& model, const ir::SourceLoc& a, const ir::SourceLoc& b) {
  auto squeezed = [&](const ir::SourceLoc& loc) {
    std::string text = ir::source_text(model, loc);
    text.erase(std::remove_if(text.begin(), text.end(), [](unsigned char c) { return std::isspace(c); }), text.end());
    return text;
  };
  const std::string x = squeezed(a);
  return !x.empty() && x == squeezed(b);
}

// An ordinary module's output fake quant (QAT gives every quantized module one) is shared by all
// calls of the module. Called again from the same line (a recurrent cell at each time step, one
// encoder for every agent in a loop, a trace's unrolled copies) its outputs are one kind of
// value, and one scale for them is the module's design. Called from two places the user wrote
// (`self.proj(a)`, then `self.proj(b)`, on two lines or in one statement), two different tensors
// share that one scale.
bool another_call_site(const analysis::Facts& facts, const analysis::QuantCall& first,
                       const analysis::QuantCall& call) {
  const ir::SourceLoc a = quant_call_location(facts, first), b = quant_call_location(facts, call);
  if (!a.known() || !b.known()) return false;
  if (a.file != b.file) return true;
  if (a.line != b.line) return !reads_the_same(facts.model(), a, b);
  if (a.column > 0 && b.column > 0 && a.column != b.column) return true;  // a scripted model's own columns
  return called_twice_in_statement(facts, call, b);
}

Diagnostic module_reuse_diagnostic(const analysis::Facts& facts, const analysis::QuantCall& first,
                                   const analysis::QuantCall& call) {
  const std::string module = facts.output_quant_point_owner(call.point).value_or(call.point);
  const ir::SourceLoc at = quant_call_location(facts, first), here = quant_call_location(facts, call);
  const bool same_line = at.file == here.file && at.line == here.line;
  Diagnostic d = quant_call_diagnostic(
      reused_stub_rule(), facts, call,
      "`self." + module + "` is called on a second tensor (first " +
          (same_line ? "earlier on this line" : "on " + ir::line_seen_from(at, here)) +
          "); QAT gives a module one output fake quant, shared by all its calls, so both outputs get one scale "
          "calibrated over both ranges and the one with the smaller range loses precision; call a separate "
          "instance for each tensor (sharing its weights if they must stay tied)");
  if (auto fake = fake_quantize_call_edit(facts, call))
    d.fixes.push_back(new_fake_quant_fix("give this call's output a new fake quant of its own", *fake));
  return d;
}

// Whether an earlier call of the same quant point saw this tensor (the same value, or the same
// ops on it written again): the same values again leave its scale as it was. A norm applied to
// each layer's output in a loop and then once more to the last one; a new stub --fix gives one
// tensor read on two lines.
bool seen_before(const std::vector<const analysis::QuantCall*>& earlier, const analysis::QuantCall& call) {
  return std::any_of(earlier.begin(), earlier.end(), [&](const analysis::QuantCall* e) {
    return e->input != nullptr && ir::computes_the_same(e->input, call.input);
  });
}

// Whether operand `i` of a node with this schema is the indices of a lookup (`aten::embedding`'s
// `indices`, `index_select`'s `index`).
bool is_index_argument(const ir::Schema* schema, size_t i) {
  return schema != nullptr && i < schema->arguments.size() &&
         (schema->arguments[i].name == "indices" || schema->arguments[i].name == "index");
}

// Whether `v` is read only as the indices of a lookup (`aten::embedding`'s `indices`,
// `index_select`'s `index`, by the schema's argument names): rows of one table come out, whatever
// the indices are. Also through calls that pass it on (a Transformer's `Embeddings` module
// calling its `self.lut(x)`: public round 22's Annotated Transformer).
bool read_only_as_indices(const ir::Model& model, const ir::Value* v, int depth = 4) {
  if (v == nullptr || v->users.empty() || depth < 0) return false;
  for (const ir::Node* user : v->users) {
    const ir::Schema* schema = ir::schema_of(*user);
    const ir::Function* callee = user->kind == "prim::CallMethod" ? ir::callee_of(model, *user) : nullptr;
    const std::vector<ir::Value*> arguments = ir::call_arguments(*user);
    for (size_t i = 0; i < user->inputs.size(); ++i) {
      if (user->inputs[i] != v || is_index_argument(schema, i)) continue;
      const bool passed_on = callee != nullptr && arguments.size() == callee->body.params.size() &&
                             read_only_as_indices(model, callee->body.params[i], depth - 1);
      if (!passed_on) return false;
    }
  }
  return true;
}

bool one_kind(const ir::Model& model, const ir::Value* a, const ir::Value* b, int depth);

// The same layer (one module instance, one method) called again on values of one kind, or on
// indices only: `self.emb(idx)` at every step of a decode loop gives rows of one table.
bool same_layer_call(const ir::Model& model, const ir::Node& x, const ir::Node& y, int depth) {
  const ir::Function* f = ir::callee_of(model, x);
  const ir::Function* g = ir::callee_of(model, y);
  if (f == nullptr || g == nullptr || f->module_path != g->module_path ||
      ir::without_trailing_digits(f->method) != ir::without_trailing_digits(g->method))
    return false;
  const std::vector<ir::Value*> xs = ir::call_arguments(x), ys = ir::call_arguments(y);
  if (xs.size() != ys.size() || xs.size() != f->body.params.size() || ys.size() != g->body.params.size()) return false;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (xs[i]->type.kind != ir::Type::Kind::Tensor) continue;
    const bool indices =
        read_only_as_indices(model, f->body.params[i]) && read_only_as_indices(model, g->body.params[i]);
    if (!indices && !one_kind(model, xs[i], ys[i], depth - 1)) return false;
  }
  return true;
}

// Two slices of one dimension from one start with one step: only their ends may differ.
bool grows_one_slice(const ir::Node& x, const ir::Node& y) {
  if (x.kind != "aten::slice" || y.kind != "aten::slice" || x.inputs.size() != 5 || y.inputs.size() != 5) return false;
  for (size_t i : {1, 2, 4})
    if (!ir::computes_the_same(x.inputs[i], y.inputs[i])) return false;
  return true;
}

// The same attribute of one module instance (its `positional` buffer), read in two of its traced
// methods (`forward`, `forward1`: the calls of one unrolled loop).
bool reads_one_attribute(const ir::Node& x, const ir::Node& y) {
  if (x.kind != "prim::GetAttr" || y.kind != "prim::GetAttr" || x.inputs.size() != 1 || y.inputs.size() != 1)
    return false;
  const ir::Attr* a = x.attr("name");
  const ir::Attr* b = y.attr("name");
  const ir::Type &from_x = x.inputs[0]->type, &from_y = y.inputs[0]->type;
  return a != nullptr && b != nullptr && a->s == b->s && from_x.kind == ir::Type::Kind::Module &&
         from_y.kind == ir::Type::Kind::Module && from_x.name == from_y.name;
}

// The value a traced method is given: the trace passes tensors between the methods of an unrolled
// loop (`forward1`'s `argument_2` is the `self.scale` that `forward` returned to the caller, and
// the caller passes on) and gives each step's inputs as arguments (a decode step's padding mask):
// through a parameter's one call and a call's returned tuple, the value itself; `v` when it is
// none of these.
const ir::Value* passed_value(const ir::Model& model, const ir::Value* v) {
  for (int depth = 0; v != nullptr && depth < 8; ++depth) {
    if (v->producer == nullptr) {
      std::deque<const ir::Value*> arguments;
      add_values_across_calls(model, *v, arguments);
      if (arguments.size() != 1) return v;
      v = arguments.front();
      continue;
    }
    const ir::Node& unpack = *v->producer;
    const ir::Node* call =
        unpack.kind == "prim::TupleUnpack" && unpack.inputs.size() == 1 ? unpack.inputs[0]->producer : nullptr;
    const ir::Function* callee = call != nullptr ? ir::callee_of(model, *call) : nullptr;
    const ir::Node* made =
        callee != nullptr && callee->body.returns.size() == 1 ? callee->body.returns[0]->producer : nullptr;
    const size_t index = ir::output_index(*v);
    if (made == nullptr || made->kind != "prim::TupleConstruct" || index >= made->inputs.size()) return v;
    v = made->inputs[index];
  }
  return v;
}

// Whether `a` and `b` are values of one kind, made by the same code on the same line: the same
// layer's output (indices may differ), other parts of one tensor (`x[:, t]` at each time step),
// the same ops on such values. A decode loop the trace unrolled applies one stub to one kind of
// value at every step, as a deployed step model does (public round 19: minGPT's `generate`).
bool one_kind(const ir::Model& model, const ir::Value* a, const ir::Value* b, int depth) {
  if (ir::computes_the_same(a, b)) return true;
  if (depth <= 0 || a == nullptr || b == nullptr) return false;
  if (const ir::Value* x = passed_value(model, a), *y = passed_value(model, b); x != a || y != b)
    return one_kind(model, x, y, depth - 1);
  if (a->producer == nullptr || b->producer == nullptr) return false;
  const ir::Node& x = *a->producer;
  const ir::Node& y = *b->producer;
  if (x.inputs.size() != y.inputs.size() || x.loc.file != y.loc.file || x.loc.line != y.loc.line) return false;
  if (x.kind == "prim::CallMethod" && y.kind == "prim::CallMethod") return same_layer_call(model, x, y, depth);
  // Two masks of one comparison written once (`toks != pad` at each step): 0 and 1, whatever they
  // compare.
  if (x.kind == y.kind && analysis::is_comparison_op(x.kind) && x.outputs.size() == 1 && x.loc.known()) return true;
  // `x[:, t]` at each time step: rows of one tensor. Other views are compared as ops are
  // (`tokens[:, :6]` and `tokens[:, 6:]` are two kinds of rows).
  if (x.kind == "aten::select" && y.kind == "aten::select" && x.inputs.size() == 3 &&
      ir::computes_the_same(x.inputs[1], y.inputs[1]))
    return one_kind(model, x.inputs[0], y.inputs[0], depth - 1);
  // `pe[:, :ys.size(1)]` at each step of a decode loop: prefixes of one table that grow with the
  // step, as an embedding's rows are (public round 22's Annotated Transformer was told to give
  // every step a stub of its own). Slices from another start are other rows.
  if (grows_one_slice(x, y)) return one_kind(model, x.inputs[0], y.inputs[0], depth - 1);
  if (reads_one_attribute(x, y)) return true;
  if (x.kind != y.kind || x.inputs.empty() || !ir::same_attributes(x, y) || ir::draws_random_numbers(x) ||
      ir::writes_anything_in_place(x))
    return false;
  // The items of a list (`levels[i]`) are different tensors, the levels of a feature pyramid.
  if (x.inputs[0]->type.kind == ir::Type::Kind::List) return false;
  if (ir::output_index(*a) != ir::output_index(*b)) return false;
  const ir::Schema* schema = ir::schema_of(x);
  for (size_t i = 0; i < x.inputs.size(); ++i) {
    if (!is_index_argument(schema, i) && !one_kind(model, x.inputs[i], y.inputs[i], depth - 1)) return false;
  }
  return true;
}

// A stub applied again on the same line (a loop the trace unrolled) to a value of the kind it
// quantized first: its one scale is the design, not a hazard.
bool applied_again_to_one_kind(const analysis::Facts& facts, const analysis::QuantCall& first,
                               const analysis::QuantCall& call) {
  constexpr int kMaxDepth = 8;  // ops back from the stub: an embedding sum, a few views
  return !another_call_site(facts, first, call) && first.input != nullptr && call.input != nullptr &&
         one_kind(facts.model(), first.input, call.input, kMaxDepth);
}

// What one scale for two tensors does. PyTorch's default QAT qconfig observes with a moving
// average, which settles between the ranges of tensors applied in turn: the larger one is clipped
// as well (public round 20's YOLOv4: an image size of 64 through an image's stub stored a range
// up to 32.6, and every pixel coordinate was halved).
std::string shared_scale_consequence(const ir::Model& model, const std::string& point) {
  for (const std::string& path : {point, point + ".activation_post_process"})
    if (const ir::ModuleInfo* m = model.find_module(path);
        m != nullptr && (m->class_name.find("MovingAvg") != std::string::npos ||
                         m->class_name.find("MovingAverage") != std::string::npos))
      return "; both share one scale, which its moving-average observer settles between their ranges, so the "
             "larger one is clipped and the smaller one loses precision";
  return "; both share one scale calibrated over both ranges, so the one with the smaller range loses precision";
}

// A call whose result the model never uses: a trace keeps the call but drops its body (a plain
// FakeQuantize, whose ops have no side effect) and with it the call's line. The tensor still went
// into the stub's scale while the model was calibrated in Python (public round 20: STAR's
// `shift_value`, read only at test time, was reported at the first call's line as "again on this
// line").
bool result_dropped_by_trace(const analysis::QuantCall& call) {
  return call.output == nullptr || call.output->type.kind == ir::Type::Kind::None;
}

Diagnostic dropped_call_diagnostic(const analysis::Facts& facts, const analysis::QuantCall& first,
                                   const analysis::QuantCall& call) {
  const std::string name = point_name(facts, call);
  Diagnostic d = quant_call_diagnostic(
      reused_stub_rule(), facts, call,
      name +
          " is also applied to a tensor whose result the model never uses (the trace kept no line for that "
          "call); while the model was calibrated, that tensor's range went into the scale it shares with "
          "the others; remove the call, or give that tensor " +
          ir::spelling(facts.model()).its_own_stub);
  d.loc = quant_call_location(facts, first);
  d.notes.push_back(
      "no automatic fix: the call quantizes nothing in the saved model; calibrating it again "
      "leaves that tensor out of the scale");
  return d;
}

std::vector<Diagnostic> check(const analysis::Facts& facts) {
  std::vector<Diagnostic> out;
  std::map<std::string, const analysis::QuantCall*> first;
  std::map<std::string, std::vector<const analysis::QuantCall*>> calls_of;
  std::vector<const analysis::QuantCall*> dropped;  // reported once the point's first kept call is known
  for (const auto& call : facts.quant_calls()) {
    if (inserted_by_fx(call.point)) continue;
    std::vector<const analysis::QuantCall*>& earlier = calls_of[call.point];
    const bool again = seen_before(earlier, call);
    earlier.push_back(&call);
    if (facts.is_module_output_quant_point(call.point)) {
      auto [it, is_first] = first.emplace(call.point, &call);
      if (!is_first && !again && another_call_site(facts, *it->second, call))
        out.push_back(module_reuse_diagnostic(facts, *it->second, call));
      continue;
    }
    if (const ir::Node* loop = loop_applying_to_new_tensors(call); loop != nullptr && !first.count(call.point)) {
      report_loop_reuse(facts, call, *loop, out);
      first.emplace(call.point, &call);
      continue;
    }
    if (result_dropped_by_trace(call)) {
      dropped.push_back(&call);
      continue;
    }
    auto [it, is_first] = first.emplace(call.point, &call);
    if (is_first || again || applied_again_to_one_kind(facts, *it->second, call)) continue;
    std::string message = point_name(facts, call) + " is applied to a second tensor" +
                          first_use(facts, *it->second, call) + shared_scale_consequence(facts.model(), call.point) +
                          "; give each tensor " + ir::spelling(facts.model()).its_own_stub;
    Diagnostic d = quant_call_diagnostic(reused_stub_rule(), facts, call, message);
    Edit clone;
    clone.kind = Edit::Kind::CloneStub;
    clone.node = call.call;
    clone.template_stub = call.point;
    clone.new_stub = call.point.substr(call.point.rfind('.') + 1);
    clone.new_stub_owner =
        call.point.rfind('.') == std::string::npos ? "" : call.point.substr(0, call.point.rfind('.'));
    if (facts.is_plain_stub(call.point))
      d.fixes.push_back(safe_fix("give this call a clone of the stub of its own, `self.{stub}`", {clone}));
    else if (auto fake = fake_quantize_call_edit(facts, call))
      d.fixes.push_back(new_fake_quant_fix("give this tensor a new fake quant of its own", *fake));
    out.push_back(d);
  }
  for (const analysis::QuantCall* call : dropped)
    if (auto it = first.find(call->point); it != first.end())
      out.push_back(dropped_call_diagnostic(facts, *it->second, *call));
  return out;
}

}  // namespace

const Rule& reused_stub_rule() {
  static const Rule rule = [] {
    Rule r;
    r.id = "reused-stub";
    r.summary = "one QuantStub module applied to two different tensors";
    r.severity = Severity::Warning;
    r.check = check;
    r.doc.what =
        "A QuantStub module (or, in a traced QAT model, its FakeQuantize) called on two "
        "different tensors, or in a `for` loop over a list of tensors (one stub for every level "
        "of a feature pyramid). An ordinary module of a QAT model has one output fake quant too: "
        "called from two places in the user's code on different tensors (`self.proj(a)`, then "
        "`self.proj(b)`, on two lines or in one statement: `self.proj(a) + self.proj(b)`) it is reported "
        "as well. Called again from one call in the code (a recurrent cell at each time step, one "
        "encoder for every agent in a loop), or from statements that read the same (both branches of "
        "`if t == 0: ... else: ...` embedding the track so far), it is not: the module is shared on purpose "
        "there, and so is its scale. A trace records a statement's line, not its columns: two calls are told from a "
        "loop's copies by the statement's text, which calls the module twice. A stub applied again on "
        "one line (a loop the trace unrolled) is reported unless each application quantizes the same "
        "kind of value: the output of the same layer on indices (`self.emb(ids)` at each step of a "
        "decode loop), other parts of one tensor (`x[:, t]` at each time step), prefixes of one tensor that "
        "grow with the step (a positional table's `pe[:, :ys.size(1)]`), the same ops on such "
        "values; the deployed step model has one quant point there too. A stub applied to a tensor whose "
        "result the model never uses still took its range into the scale during calibration; a trace "
        "keeps that call without its line, so it is reported at the stub's first line, without a fix.";
    r.doc.why =
        "A stub holds one scale, calibrated over everything it sees. Two tensors through one "
        "stub share it: the tensor with the smaller range keeps far fewer bits than it would "
        "alone, and a 0/1 mask next to large data can round its 1s to 0.";
    r.doc.example =
        "    a = self.quant(a)\n"
        "    b = self.quant(b)      # shares a's scale";
    r.doc.fix =
        "Create one stub per tensor:\n"
        "    a = self.quant_a(a)\n"
        "    b = self.quant_b(b)\n"
        "In a traced QAT model `--fix` gives the second tensor a clone of the shared FakeQuantize "
        "module, registered on the module and called in its place, starting at the scale it "
        "calibrates on `--input` on that tensor alone (refused without inputs).";
    r.doc.fix_safety =
        "Safe in scripted and traced QAT models: stubs, and FakeQuantize clones in the model's float "
        "mode (its disable_fake_quant reaches them), are the identity in float; each new one calibrates "
        "its own range. A stub applied in a `for` loop over a list the model fixes (a list literal, a "
        "constant count) is fixed in two steps: the loop is unrolled in the archive (the same ops in the "
        "same order), then each iteration's call gets a clone; the Python change (a list of stubs indexed "
        "like the loop) is described, not written. A loop of unknown length has no automatic fix. FX exports "
        "get the Python change only (`--diff`).";
    return r;
  }();
  return rule;
}

}  // namespace qlint::rules
