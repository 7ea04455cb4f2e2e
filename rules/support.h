// Small helpers shared by rules: finding nodes, reading constants, naming things in messages.
#pragma once

#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/constants.h"
#include "analysis/facts.h"
#include "ir/ops.h"
#include "ir/source_text.h"
#include "rules/diagnostic.h"

namespace qlint::rules {

struct Rule;

// Calls fn(function, node) for every node of every function, nested blocks included.
template <typename Fn>
void for_each_model_node(const ir::Model& model, Fn&& fn) {
  for (const auto& f : model.functions) ir::for_each_node(f->body, [&](const ir::Node& n) { fn(*f, n); });
}

// The same for the nodes that can run: none in a branch the archive rules out
// (Facts::folded_branch), where a finding would be noise and a fix would change nothing.
template <typename Fn>
void for_each_model_node(const analysis::Facts& facts, Fn&& fn) {
  for_each_model_node(facts.model(), [&](const ir::Function& f, const ir::Node& n) {
    if (facts.is_live(n)) fn(f, n);
  });
}

// Calls fn(function, node, side) for side 0 and 1 of every two-operand node whose kind
// `matches` (and that can run), until fn returns true (it reported the node) or both sides
// were tried.
template <typename Matches, typename Fn>
void for_each_operand_side(const analysis::Facts& facts, Matches&& matches, Fn&& fn) {
  for_each_model_node(facts, [&](const ir::Function& f, const ir::Node& n) {
    if (!matches(n.kind) || n.inputs.size() < 2) return;
    for (int side = 0; side < 2; ++side)
      if (fn(f, n, side)) return;
  });
}

// "a", "a and b", "a, b and c", as messages list things.
std::string listed(const std::vector<std::string>& items);

// "`self.quant`" or "`self.quant` and `self.quant_mask`": the stubs whose error v carries, with
// their lines as a message at `at` (else at v) names them: a line of another file with its file.
std::string describe_stubs(const analysis::Facts& facts, const ir::Value* v, const ir::Node* at = nullptr);
// The description of a reroot fix on a comparison whose value `stubs` quantize (eq-nonzero-const,
// sim-divergence): "compare the float input of `self.quant` instead, ...".
std::string reroot_comparison_description(const std::string& stubs);

// Elementwise arithmetic whose operands must share the quantized domain:
// mul/add/sub/div/rsub/true_divide and their in-place forms.
bool is_binary_arithmetic(const std::string& kind);
// The fused forms that add their first operand to a product of the next two (`torch.baddbmm(bias,
// q, k)`, an additive attention mask; `addmm`, a Linear's bias): their first two operands meet as
// `+`'s do, so is_binary_arithmetic counts them.
bool is_fused_multiply_add(const std::string& kind);
// Matrix products of two tensors (`a @ b`, torch.mm/bmm/matmul): both operands enter the
// accelerator's product, each with its own scale, as `*`'s do.
bool is_matrix_product(const std::string& kind);

// Where a value comes from across calls: for a parameter of a method, the argument each call of
// it passes (a padding mask built in forward and passed into every attention layer); for a
// call's result, the value its callee returns there. Appended to `pending`.
void add_values_across_calls(const ir::Model& model, const ir::Value& v, std::deque<const ir::Value*>& pending);

// The numbers a constant operand holds, also of a parameter that every call passes a constant
// for (`get_pad_mask(seq, 0)`: `seq != pad_idx` compares with 0); nullopt when some call passes
// no constant, or there is no call.
std::optional<std::vector<double>> constant_values_across_calls(const ir::Model& model, const ir::Value* v);
// Each node that writes `v` in place, directly or through a view of it (`idx[:, i] = far` writes
// a select of `idx`; `mask[d > c] = -inf` writes `mask`).
void for_each_write_into(const ir::Value& v, const std::function<void(const ir::Node&)>& visit, int depth = 0);

// PyTorch's own Python (nn.Sequential.forward, nn.ModuleList loops, nn.MultiheadAttention's
// internals) or torchvision's (`batched_nms`), or TorchScript's builtins compiled from a string (`1.0 == t` calls one
// whose body is `return b == a`, "<string>"): a line there is where a hazard surfaced, not a line the user can change.
bool in_library_code(const ir::SourceLoc& loc);

// A number as people write it: 1, 0.5, 1.0007, 2.1363 (five significant digits at most).
std::string format_number(double v);
// `v` with as many digits as it takes to tell it from `other` (0.99998 beside 1, not "1").
std::string format_number_unlike(double v, double other);

// The node's own source location, or, for nodes without one (calls in traced graphs), the
// location of the first user that has one.
ir::SourceLoc best_location(const ir::Node& node);
// Where a module call is in the user's code: its own location, or a traced call's (which has
// none) from the first op of the method it runs, whose stack ends in the calling line.
ir::SourceLoc module_call_location(const analysis::Facts& facts, const ir::Node& call);

// `loc` (of `node`), or when it lies in PyTorch's own Python (a stub called by nn.Sequential),
// the line of the user's code that called into it.
ir::SourceLoc user_location(const ir::Model& model, const ir::Node& node, ir::SourceLoc loc);

// Where a quantizing call is in the user's source. Traced graphs record no location for the
// call itself; the quantize op inside the FakeQuantize has the user's frame on its stack.
ir::SourceLoc quant_call_location(const analysis::Facts& facts, const analysis::QuantCall& call);

// A diagnostic reported at a quantizing call.
Diagnostic quant_call_diagnostic(const Rule& rule, const analysis::Facts& facts, const analysis::QuantCall& call,
                                 std::string message);

// Fix builders. Each returns nothing when the rewrite does not apply here.
// Recompute operand `operand` of `consumer` from the float input of the quant call its view
// chain starts at (same function only: a value cannot be fetched from the caller).
// When there is none, `refusal` (if given) says why, as "no automatic fix: ...": rules add it as
// a note to a finding they cannot fix, so --fix says why.
// `inline_choice`: analysis::plan_float_shadow's.
std::optional<Edit> reroot_edit(const analysis::Facts& facts, const ir::Node& consumer, int operand,
                                std::string* refusal = nullptr, size_t inline_choice = 0);
// Whether a reroot's float shadow recomputes the value from float data alone: every operand it
// reads from outside the shadow carries no quantization (not a layer's quantized weights).
bool shadow_is_exact(const analysis::Facts& facts, const analysis::FloatShadowPlan& plan);

// How a fix of a line's copies (a helper a trace inlined for several calls) words what it covers:
// " (for 1 of its 2 copies on this line)", and the note for the rest, "no fix for 1 of the 2
// copies on this line: <why>", where `refusal` is a copy's "no automatic fix: <why>".
std::string fixed_copies(size_t fixed, size_t all);
std::string unfixed_copies_note(size_t unfixed, size_t all, const std::string& refusal);
// FX's prepare inserts `activation_post_process_N` modules itself, and shares one between an op
// and the ops that must keep its scale (clamp, relu, flatten after it): reuse there is by design,
// not something the user wrote.
bool inserted_by_fx(const std::string& point);

// Why no new stub can quantize an operand of `consumer`, as a note ("" when one can, or when
// the model has no plain QuantStub to clone): a function that no module's method calls.
std::string no_new_stub_reason(const analysis::Facts& facts, const ir::Node& consumer);
// Quantize operand `operand` of `consumer` with a new stub cloned from the model's plain
// QuantStub (the consumer must sit in a module's method, where `self` can hold the stub).
std::optional<Edit> quantize_operand_edit(const analysis::Facts& facts, const ir::Node& consumer, int operand,
                                          bool cast_to_float);
// In a model whose quant points are in-graph fake quants (traced QAT), where no plain stub
// can be cloned: pass operand `operand` of `consumer` through a new fake quant of the range of
// the fake quant its other operand carries, a clone of that FakeQuantize module on the module
// whose method holds `consumer` (else an in-graph op). A `mask` (a bool cast to float) gets
// scale 1, exact for 0 and 1; other values a scale --fix calibrates on the inputs. `like_point`, when
// it names an activation fake quant, is the template instead (the one the values came through).
std::optional<Edit> fake_quantize_operand_edit(const analysis::Facts& facts, const ir::Node& consumer, int operand,
                                               bool mask, const std::string& like_point = "");
// The same for a traced FakeQuantize's call that quantizes a second tensor (reused-stub): its
// input gets a new fake quant of the same range, with a scale of its own.
std::optional<Edit> fake_quantize_call_edit(const analysis::Facts& facts, const analysis::QuantCall& call);
Fix safe_fix(std::string description, std::vector<Edit> edits);
// The fix that adds a new fake quant (traced QAT): safe when it is a clone of the model's own
// FakeQuantize (the model's disable_fake_quant reaches it) or a 0/1 mask's exact scale, which
// changes no value in any mode; unsafe for a calibrated in-graph op, which the model's
// `disable_fake_quant` does not turn off.
Fix new_fake_quant_fix(std::string description, const Edit& edit);
// A float tensor made by casting a bool tensor (a comparison result: 0 and 1 only), or an input
// of forward the simulation saw hold only 0 and 1 (a padding mask given as floats), seen
// through views and into the calls that pass it (`calls` levels of them).
bool is_cast_of_bool(const analysis::Facts& facts, const ir::Value* v, int calls = 4);
// Whether every quant point of `v` is a TorchScript model's outputs (C++): the code holds no
// quantize call to read around, the model quantizes inside (the rules' messages say so).
bool only_model_outputs(const analysis::Facts& facts, const ir::Value* v);
// An integer tensor cast to float (`(i % 8).float()`, `class_pred.float()`): whole numbers, also
// once views and selections have taken some of them (CenterNet's cell columns, gathered by the
// second topk's picks and viewed: `_gather_feat(xs.view(b, -1, 1), inds).view(b, K)`).
bool holds_whole_numbers(const analysis::Facts& facts, const ir::Value* v);
// Whether the graph leaves open that `v` holds whole numbers: a parameter (a float 0/1 mask a
// traced model is given), a constant, an integer or bool value, or ops that keep whole numbers
// whole (views, joins, sums, differences, products, min/max, rounding) over such. A quotient
// (`count / 10`), a layer's output or any op not listed may hold fractions on other inputs.
bool may_hold_whole_numbers(const analysis::Facts& facts, const ir::Value* v);

Diagnostic make_diagnostic(const Rule& rule, const ir::Function& fn, const ir::Node& node, std::string message);

}  // namespace qlint::rules
