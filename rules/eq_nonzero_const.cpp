// eq-nonzero-const: `x == c` / `x != c` where x carries quantization and c is nonzero.
// Symmetric quantization represents 0 exactly but c only as the nearest multiple of the
// scale, so the comparison that was exact in float is (almost) never true once quantized.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>

#include "analysis/comparisons.h"
#include "analysis/fake_quant.h"
#include "analysis/quant_domain.h"
#include "ir/ops.h"
#include "ir/spelling.h"
#include "rules/registry.h"
#include "rules/support.h"

namespace qlint::rules {

namespace {

bool is_equality(const std::string& kind) {
  return kind == "aten::eq" || kind == "aten::ne" || kind == "aten::eq_" || kind == "aten::ne_";
}

// Zero is exact under symmetric quantization, and inf and NaN are never approximated:
// quantization saturates at its range's ends and never makes either, so `x == inf` is true
// exactly where the code wrote inf (an invalid-depth marker, public C++ round 24), in float and
// once quantized alike, and `x == nan` never.
bool any_finite_nonzero(const std::vector<double>& values) {
  for (double v : values)
    if (v != 0 && std::isfinite(v)) return true;
  return false;
}

// The one quant point whose scale is known, when the value carries exactly one.
const analysis::QuantPoint* known_scale_point(const analysis::Facts& facts, const ir::Value* v) {
  const auto& sources = facts.quant_sources(v);
  if (sources.size() != 1) return nullptr;
  const analysis::QuantPoint* point = facts.quant_point(*sources.begin());
  return point && point->scale ? point : nullptr;
}

float quantized_value(const analysis::QuantPoint& p, double c) {
  return analysis::fake_quantize(static_cast<float>(c), static_cast<float>(*p.scale), p.zero_point, p.quant_min,
                                 p.quant_max);
}

// Ops whose result keeps its operand's quantization grid: they pick or bound values without
// computing new ones (clamp's bounds are quantized too on an int8 tensor).
bool keeps_the_grid(const ir::Node& node) {
  static const std::set<std::string> ops = {"aten::clamp",     "aten::clamp_",     "aten::clamp_min",
                                            "aten::clamp_max", "aten::relu",       "aten::relu_",
                                            "aten::hardtanh",  "aten::max_pool1d", "aten::max_pool2d"};
  return ops.count(node.kind) > 0 || analysis::is_dequantize_op(node.kind) || ir::is_view_op(node);
}

// The scale says what a constant becomes only for the quant point's own output, seen through
// ops that keep its grid (views, and selections such as `x.amax(1)` or `torch.maximum(a, b)`);
// a value computed from it (a Linear's output) lies on no such grid. `budget` bounds the walk:
// selections between two tensors branch, and a model may chain them.
bool on_the_grid_of(const analysis::Facts& facts, const ir::Value* v, const analysis::QuantPoint& point, int& budget) {
  if (v == nullptr || --budget < 0) return false;
  if (facts.views_of(v).count(point.id)) return true;
  const ir::Node* p = v->producer;
  if (p == nullptr || p->inputs.empty()) return false;
  if (keeps_the_grid(*p)) return on_the_grid_of(facts, p->inputs[0], point, budget);
  const size_t output = ir::output_index(*v);
  const auto selected = ir::selected_operands(*p, output);
  return !selected.empty() && std::all_of(selected.begin(), selected.end(), [&](const ir::Value* operand) {
    return on_the_grid_of(facts, operand, point, budget);
  });
}

bool on_the_grid_of(const analysis::Facts& facts, const ir::Value* v, const analysis::QuantPoint& point) {
  int budget = 64;
  return on_the_grid_of(facts, v, point, budget);
}

std::string what_it_becomes(const analysis::Facts& facts, const ir::Value* quantized,
                            const std::vector<double>& constant) {
  const analysis::QuantPoint* p = known_scale_point(facts, quantized);
  if (p == nullptr || constant.size() != 1 || !on_the_grid_of(facts, quantized, *p)) {
    // The example fits a 1 (a mask's); for another constant, a class id 10, it says what happens
    // to that one (public C++ round 22: "1.0 may become 1.0007" beside `== 10`).
    const std::string c = constant.size() == 1 ? format_number(constant[0]) : "";
    return ", which quantization only approximates (" +
           (c.empty() || c == "1" ? std::string("1.0 may become 1.0007")
                                  : "a value meant to be " + c + " comes back as the nearest step of the scale") +
           "), so it is almost never ";
  }
  return " (scale " + format_number(*p->scale) + "): " + format_number(constant[0]) + " becomes " +
         format_number_unlike(quantized_value(*p, constant[0]), constant[0]) + " after quantization, so it is never ";
}

// Where the exact value is, in the terms of the model's quantization flow.
std::string advice(const analysis::Facts& facts, const ir::Value* quantized) {
  const auto& sources = facts.quant_sources(quantized);
  const analysis::QuantPoint* point = sources.empty() ? nullptr : facts.quant_point(*sources.begin());
  if (point != nullptr && point->model_outputs)
    return "compare inside the model, before its quantization, and return the result, or allow a tolerance of "
           "half the output's scale";
  if (point == nullptr || point->node == nullptr)
    return "compare the float tensor before " + ir::spelling(facts.model()).before_quant_point;
  if (point->identity_in_float)
    return "compare the float tensor before it is fake-quantized (before the QuantStub, or the op whose output is "
           "observed, in the model's Python)";
  return "compute the comparison before the model quantizes the tensor, or allow a tolerance of half the scale";
}

std::string message(const analysis::Facts& facts, const ir::Node& node, int side, const std::vector<double>& constant) {
  const ir::Value* quantized = node.inputs[side];
  std::string op = ir::operator_spelling(node.kind);
  std::string text = ir::operand_text(facts.model(), node, side);
  std::string c = constant.size() == 1 ? format_number(constant[0]) : "a nonzero constant tensor";
  return "`" + op + "` compares " + (text.empty() ? "a value" : text) + " quantized by " +
         describe_stubs(facts, quantized) + " with " + c + what_it_becomes(facts, quantized, constant) +
         (op == "==" ? "true" : "false") + "; " + advice(facts, quantized) +
         // Not when the simulation saw other values (`seq != pad_idx` on token ids).
         (facts.compares_other_values(node)
              ? ""
              : ", or compare with 0 if the values are only 0 and " + (constant.size() == 1 ? c : "that constant"));
}

// With a known scale the verdict is exact: a constant that is a multiple of the scale
// survives quantization and the comparison is fine.
bool survives_quantization(const analysis::Facts& facts, const ir::Value* quantized,
                           const std::vector<double>& constant) {
  // Only the quant point's own grid holds the constant exactly: what a layer computes from
  // quantized values (or from fake-quantized weights) lies on no grid.
  const analysis::QuantPoint* p = known_scale_point(facts, quantized);
  if (p == nullptr || !on_the_grid_of(facts, quantized, *p)) return false;
  for (double c : constant)
    if (static_cast<double>(quantized_value(*p, c)) != c) return false;
  return true;
}

// `x == c` as `logical_not(x == 0)`: exact under quantization, and equal in float while x
// holds only 0 and c, which the simulation (`--input`) must have shown.
std::optional<Edit> compare_with_zero_edit(const analysis::Facts& facts, const ir::Node& node, int side) {
  if ((node.kind != "aten::eq" && node.kind != "aten::ne") || !node.inputs[side]->type.is_tensor()) return std::nullopt;
  if (!facts.compares_only_zero_or_constant(node)) return std::nullopt;
  Edit e;
  e.kind = Edit::Kind::CompareWithZero;
  e.node = &node;
  e.operand = side;
  return e;
}

// Safe when the comparison can read the stub's float input; otherwise unsafe, and only when
// the simulation saw nothing but 0 and the constant.
std::optional<Fix> fix_for(const analysis::Facts& facts, const ir::Node& node, int side, double constant,
                           std::string& refusal) {
  if (auto edit = reroot_edit(facts, node, side, &refusal))
    return safe_fix(reroot_comparison_description(describe_stubs(facts, node.inputs[side])), {*edit});
  auto edit = compare_with_zero_edit(facts, node, side);
  if (!edit) return std::nullopt;
  Fix fix;
  fix.applicability = Applicability::Unsafe;
  fix.description = "compare with 0 instead: the simulation saw only 0 and " + format_number(constant) +
                    " here, and 0 survives quantization (unsafe: other values would compare differently)";
  fix.edits = {*edit};
  return fix;
}

// The safe fix that makes `consumer` read the float shadow of its operand `operand` (whose
// quantized value is `compared`), or the note why there is none.
void add_reroot_fix(const analysis::Facts& facts, const ir::Node& consumer, int operand, const ir::Value* compared,
                    Diagnostic& d) {
  std::string refusal;
  if (auto edit = reroot_edit(facts, consumer, operand, &refusal))
    d.fixes.push_back(safe_fix(reroot_comparison_description(describe_stubs(facts, compared)), {*edit}));
  else if (!refusal.empty())
    d.notes.push_back(refusal);
}

// A zero test of a quantized value shifted by a nonzero constant: the comparison with that
// constant in disguise (`(1.0 - q).to(torch.bool)` is `q != 1`).
void check_disguised_comparisons(const analysis::Facts& facts, std::vector<Diagnostic>& out) {
  for_each_model_node(facts, [&](const ir::Function& fn, const ir::Node& node) {
    auto disguised = analysis::disguised_comparison(node);
    if (!disguised || !facts.quantized(disguised->compared)) return;
    if (!std::isfinite(disguised->constant) || survives_quantization(facts, disguised->compared, {disguised->constant}))
      return;
    const std::string name = ir::written_name(facts.model(), disguised->compared);
    const std::string q = name.empty() ? "a value" : "`" + name + "`";
    const std::string c = format_number(disguised->constant);
    const std::string equivalent = (name.empty() ? std::string("x") : name) + (disguised->equal ? " == " : " != ") + c;
    std::string message = "this test against zero is `" + equivalent + "`: it compares " + q + " quantized by " +
                          describe_stubs(facts, disguised->compared) + " with " + c +
                          what_it_becomes(facts, disguised->compared, {disguised->constant}) +
                          (disguised->equal ? "true" : "false") + "; " + advice(facts, disguised->compared);
    Diagnostic d = make_diagnostic(eq_nonzero_const_rule(), fn, node, std::move(message));
    // The same fix as for `x != 1`: the shift reads the float shadow of the compared value.
    add_reroot_fix(facts, *disguised->reader, disguised->operand, disguised->compared, d);
    out.push_back(std::move(d));
  });
}

// What a masking bias `(1.0 - q) * factor` adds where q is a quantized 1: factor times the rounding
// of 1, at the stated scale, else at int16's (1 becomes 0.99997, SPEC).
double bias_on_kept_elements(const analysis::Facts& facts, const ir::Value* quantized, double factor) {
  constexpr double kInt16RoundingOfOne = 1.0 / 32768;
  const analysis::QuantPoint* p = known_scale_point(facts, quantized);
  if (p != nullptr && on_the_grid_of(facts, quantized, *p)) return factor * (1.0 - quantized_value(*p, 1.0));
  return factor * kInt16RoundingOfOne;
}

// `(1.0 - q) * torch.finfo(dtype).min`, an additive attention mask (analysis::masking_bias): 0 only
// where q is exactly 1, the comparison with 1 in disguise. Quantized, the 1s move and every element
// the mask keeps gets a bias too. Added before a softmax, a bias shared by a row is harmless unless
// it swamps what it is added to: -0.3 from -10000 is, 1e34 from finfo.min makes attention uniform.
void check_masking_biases(const analysis::Facts& facts, std::vector<Diagnostic>& out) {
  constexpr double kSwampingBias = 1e5;  // float32 keeps a score of 1 to 0.006 beside it
  for_each_model_node(facts, [&](const ir::Function& fn, const ir::Node& node) {
    auto bias = analysis::masking_bias(node);
    if (!bias) return;
    const analysis::DisguisedComparison& mask = bias->mask;
    if (!facts.quantized(mask.compared) || survives_quantization(facts, mask.compared, {1.0})) return;
    const double kept_bias = bias_on_kept_elements(facts, mask.compared, bias->factor);
    if (std::fabs(kept_bias) < kSwampingBias) return;
    const std::string name = ir::written_name(facts.model(), mask.compared);
    std::string message = "this bias is 0 only where `" + (name.empty() ? std::string("x") : name) +
                          " == 1`: it compares " + (name.empty() ? "a value" : "`" + name + "`") + " quantized by " +
                          describe_stubs(facts, mask.compared) + " with 1" +
                          what_it_becomes(facts, mask.compared, {1.0}) + "0, and every element the mask keeps gets " +
                          "a bias of about " + format_number(kept_bias) + ", which swamps the values it is added to; " +
                          advice(facts, mask.compared);
    Diagnostic d = make_diagnostic(eq_nonzero_const_rule(), fn, node, std::move(message));
    add_reroot_fix(facts, *mask.reader, mask.operand, mask.compared, d);
    out.push_back(std::move(d));
  });
}

// `x.round() == 3`: rounding puts the value back on whole numbers, so a whole constant is met
// exactly unless the error reached half a step (truncating-cast is the hazard of `.long()`).
// `floor` and `ceil` are no such cure: 2.0 quantized to 1.9997 floors to 1.
bool rounded_to_whole_numbers(const ir::Value* operand, const std::vector<double>& constants) {
  if (operand->producer == nullptr) return false;
  if (ir::base_op(operand->producer->kind) != "round") return false;
  for (double c : constants)
    if (c != std::floor(c)) return false;
  return true;
}

// `coords[:, 0] == b`, `b` a Python int the model computes (a loop's batch index, a count): a
// whole number other than 0 is met only by chance once the tensor is quantized. Integer tensors
// are exact; only a scalar int is known to be whole here.
bool is_integer_variable(const ir::Value* v, const std::optional<std::vector<double>>& constant) {
  return v->type.kind == ir::Type::Kind::Int && !constant;
}

// A stated scale whose reciprocal is whole (scale 1, 0.5, 0.25) holds every whole number in
// its range exactly, whatever the integer.
bool whole_numbers_survive(const analysis::Facts& facts, const ir::Value* quantized) {
  const analysis::QuantPoint* p = known_scale_point(facts, quantized);
  if (p == nullptr || !on_the_grid_of(facts, quantized, *p) || *p->scale <= 0) return false;
  const double steps = 1.0 / *p->scale;
  return steps == std::round(steps);
}

Diagnostic integer_comparison(const analysis::Facts& facts, const ir::Function& fn, const ir::Node& node, int side) {
  const ir::Value* quantized = node.inputs[side];
  const std::string op = ir::operator_spelling(node.kind);
  const std::string text = ir::operand_text(facts.model(), node, side);
  std::string integer = ir::operand_text(facts.model(), node, static_cast<size_t>(1 - side));
  integer = integer.empty() ? "an integer" : "the integer " + integer;
  Diagnostic d = make_diagnostic(
      eq_nonzero_const_rule(), fn, node,
      "`" + op + "` compares " + (text.empty() ? "a value" : text) + " quantized by " +
          describe_stubs(facts, quantized) + " with " + integer +
          ": quantization moves every whole number but 0 off itself (1.0 may become 0.99997), so the comparison "
          "is almost never " +
          (op == "==" ? "true" : "false") + " where the integer is not 0; " + advice(facts, quantized));
  add_reroot_fix(facts, node, side, quantized, d);
  return d;
}

std::vector<Diagnostic> check(const analysis::Facts& facts) {
  std::vector<Diagnostic> out;
  check_disguised_comparisons(facts, out);
  check_masking_biases(facts, out);
  for_each_operand_side(facts, is_equality, [&](const ir::Function& fn, const ir::Node& node, int side) {
    const ir::Value* operand = node.inputs[side];
    if (!facts.quantized(operand)) return false;
    // Not an int already (`int(q.item())`: truncating-cast's finding).
    const bool fractional = (operand->type.is_tensor() && !ir::is_integral(facts.dtype(operand)) &&
                             facts.dtype(operand) != ir::DType::Bool) ||
                            operand->type.kind == ir::Type::Kind::Float;
    // Its numbers, also a helper's parameter's that every call passes (read once: a walk of the calls).
    const auto constant = constant_values_across_calls(facts.model(), node.inputs[1 - side]);
    if (fractional && is_integer_variable(node.inputs[1 - side], constant)) {
      if (rounded_to_whole_numbers(operand, {}) || whole_numbers_survive(facts, operand)) return true;
      out.push_back(integer_comparison(facts, fn, node, side));
      return true;
    }
    if (!constant || !any_finite_nonzero(*constant)) return false;
    if (survives_quantization(facts, operand, *constant)) return true;
    if (rounded_to_whole_numbers(operand, *constant)) return true;
    Diagnostic d = make_diagnostic(eq_nonzero_const_rule(), fn, node, message(facts, node, side, *constant));
    std::string refusal;
    if (auto fix = fix_for(facts, node, side, (*constant)[0], refusal))
      d.fixes.push_back(*fix);
    else if (!refusal.empty())
      d.notes.push_back(refusal);
    out.push_back(d);
    return true;
  });
  return out;
}

}  // namespace

const Rule& eq_nonzero_const_rule() {
  static const Rule rule = [] {
    Rule r;
    r.id = "eq-nonzero-const";
    r.summary = "`==`/`!=` between a quantized value and a nonzero constant";
    r.severity = Severity::Warning;
    r.check = check;
    r.doc.what =
        "An equality comparison (`==`, `!=`, `torch.eq`, `torch.ne`) between a value that "
        "carries quantization error (it passed a QuantStub or another quant point, also after "
        "a DeQuantStub) and a nonzero constant, or a Python int the model computes (`coords[:, 0] == b` "
        "in a loop over the batch), in either operand order. A helper's parameter that every call passes a "
        "constant for is that constant (`seq != pad_idx` in `get_pad_mask(seq, 0)` compares with 0: silent). When "
        "the model "
        "states the quant point's scale (a traced QAT model), qlint computes what the "
        "constant becomes and stays silent if it survives quantization exactly. Infinity and NaN are not "
        "reported: quantization never makes either, so `depth == inf` is true exactly where the code wrote inf.";
    r.doc.why =
        "A symmetric int16/int8 quantizer stores `round(x / scale) * scale`. Zero is exact, but "
        "a nonzero constant c is replaced by the nearest multiple of the scale. With int16 and "
        "data up to 60.5 the scale is 0.0018463, so 1.0 becomes 1.0007 and `x == 1` is never "
        "true: a mask built this way is all False and everything it gates becomes zero. The "
        "float model is correct, so nothing fails until the model runs on the accelerator.";
    r.doc.example =
        "    x = self.quant(x)\n"
        "    mask = x[:, :, :, -1] == 1        # always False once quantized\n"
        "    out = x * mask[:, :, :, None]";
    r.doc.fix =
        "Compute the comparison on the float tensor before the QuantStub (exact in float) and "
        "pass the mask through its own QuantStub:\n"
        "    mask = (x[:, :, :, -1] == 1).to(torch.float)\n"
        "    data = self.quant(x)\n"
        "    mask = self.quant_mask(mask)\n"
        "If the compared values are only ever 0 and c, `torch.logical_not(x == 0)` is exact "
        "too, since 0 survives quantization.";
    r.doc.fix_safety =
        "Moving the comparison before the stub is safe: the float model computes the same "
        "values. Rewriting to `logical_not(x == 0)` is unsafe: it changes the float result "
        "for any value other than 0 and c. A comparison in disguise (`(1.0 - q).to(torch.bool)`, "
        "`(q - c) != 0`) gets the same safe fix: the shift reads the float tensor before the stub. So does an additive "
        "attention mask `(1.0 - q) * torch.finfo(dtype).min`: 0 only where q is exactly 1, so once quantized every "
        "element the mask keeps gets a bias too, reported where it swamps what it is added to (beyond 1e5: -10000 "
        "moves a softmax's row by a shared -0.3, which changes nothing).";
    r.onnx_fix =
        "`--fix` makes the comparison read the float twin of its quantized operand: the value with the nearest "
        "QuantizeLinear/DequantizeLinear pair taken out, through copies of the ops between. Safe: a QDQ pair is the "
        "identity in float.";
    r.cxx.summary = "`==`/`!=` between a quantized tensor or scalar and a nonzero constant";
    r.cxx.what =
        "An equality comparison (`==`, `!=`, `.eq()`, `.ne()`, also of `item<float>()` scalars) between a "
        "value computed from a quantizing call (`at::quantize_per_tensor`, `fake_quantize_per_tensor_affine`, "
        "a project's own `quant-functions`, a TorchScript model's quantized outputs; also after "
        "`.dequantize()`) and a nonzero constant. When the call states its scale and dtype as constants, "
        "qlint computes what the constant becomes and stays silent if the scale holds it exactly.";
    r.cxx.example =
        "    torch::Tensor x = seed::quantize_int16(input);\n"
        "    torch::Tensor mask = x.index({Slice(), Slice(), Slice(), -1}) == 1;  // always false";
    r.cxx.fix =
        "Compare the float tensor, before the quantize call, and quantize the mask on its own:\n"
        "    torch::Tensor mask = input.index({Slice(), Slice(), Slice(), -1}) == 1;\n"
        "For a TorchScript model's outputs, compare inside the model before its quantization, or "
        "allow a tolerance of half the output's scale.";
    r.cxx.fix_safety =
        "Unsafe (`--unsafe-fixes`): comparing the float tensor changes what the program computes, where "
        "the model's fixes keep float results. Only the comparison's operand is rewritten.";
    return r;
  }();
  return rule;
}

}  // namespace qlint::rules
