// truncating-cast: a quantized float value cast to an integer (`.long()`, `int(x.item())`).
// The cast truncates toward zero, so a whole number that quantization moved just below itself
// (2.0 as 1.9997) loses one: class ids, counts and indices carried in a tensor come out wrong.
#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <vector>

#include "analysis/constants.h"
#include "analysis/float_shadow.h"
#include "ir/source_text.h"
#include "ir/spelling.h"
#include "rules/registry.h"
#include "rules/support.h"

namespace qlint::rules {

namespace {

// Casts to an integer: a tensor to an integer dtype, or a number to int.
bool is_integer_cast(const analysis::Facts& facts, const ir::Node& node) {
  if (node.inputs.empty() || node.outputs.size() != 1) return false;
  if (node.kind == "aten::Int") return true;
  if (node.kind != "aten::to" && node.kind != "aten::type_as") return false;
  return ir::is_integral(facts.dtype(node.output()));
}

// How the cast's operand was made whole already, as the message says it: `floor` and floor
// division (`//`, `div(rounding_mode='floor')`), `ceil`, `trunc`. Empty otherwise.
std::string whole_number_rounding(const ir::Node* producer) {
  static const char* const kDown =
      "down before the cast: a whole number that quantization moves just below itself (2.0 as 1.9997) becomes one "
      "less";
  static const char* const kUp =
      "up before the cast: a whole number that quantization moves just above itself (2.0 as 2.0003) becomes one "
      "more";
  static const char* const kTowardZero =
      "toward zero before the cast: a whole number that quantization moves toward zero (2.0 as 1.9997, -2.0 as "
      "-1.9997) loses one in magnitude";
  if (producer == nullptr) return "";
  const std::string op = ir::base_op(producer->kind);
  std::string mode;
  if (op == "div" && producer->inputs.size() >= 3 && producer->inputs[2]->producer != nullptr)
    if (const ir::Attr* a = producer->inputs[2]->producer->attr("value"); a && a->kind == ir::Attr::Kind::Str)
      mode = a->s;
  if (op == "floor" || op == "floor_divide" || mode == "floor") return kDown;
  if (op == "ceil") return kUp;
  if (op == "trunc" || op == "fix" || mode == "trunc") return kTowardZero;
  return "";
}

// The tensor whose value is cast: `x.floor().item<int64_t>()` casts the number `item` reads off
// `x.floor()`, so its rounding is the floor's, and the code names it by `x.floor()`.
const ir::Node* tensor_read(const ir::Node& cast) {
  const ir::Node* producer = cast.inputs[0]->producer;
  return producer != nullptr && producer->kind == "aten::item" && !producer->inputs.empty() ? producer : nullptr;
}

const ir::Node* rounding_producer(const ir::Node& cast) {
  const ir::Node* item = tensor_read(cast);
  return item != nullptr ? item->inputs[0]->producer : cast.inputs[0]->producer;
}

// `x + 0.5` before the cast: rounding half up, the usual idiom for non-negative values (a
// probability or depth map to 8-bit pixels, `static_cast<uint8_t>(v * 255 + 0.5f)`): 1.9997 + 0.5
// still truncates to 2 (public round 21 C++: reported as truncation, advised to round).
bool rounds_half_up(const ir::Node* producer) {
  if (producer == nullptr || ir::base_op(producer->kind) != "add" || producer->inputs.size() < 2) return false;
  for (size_t i = 0; i < 2; ++i)
    if (std::optional<double> c = analysis::scalar_constant(producer->inputs[i]); c && *c == 0.5) return true;
  return false;
}

// C++ ranges the conversion Clang inserts in `static_cast<int>(s * 640 / 416.0)` (and in
// `cv::Point(a[i][2] - 17, ...)`) by its operand, the same range as the arithmetic that makes it:
// that range is the operand's text.
std::string converted_text(const ir::Model& model, const ir::Node& cast) {
  const ir::Node* producer = cast.inputs[0]->producer;
  if (model.language != ir::Language::Cxx || producer == nullptr || !(producer->loc == cast.loc)) return "";
  const std::string text = ir::source_text(model, cast.loc);
  return text.empty() || text.size() > 120 ? "" : "`" + text + "`";
}

// The advice's spelling of rounding: a C++ float number (not a tensor) rounds with std::lround; a
// tensor cast to another integer type than int64 keeps its type (public round 18: a depth map
// cast to `torch::kUInt8` was advised `torch::round(x).to(torch::kLong)`).
// `quoted_tensor`: the message quotes the tensor a number was read from, not the number.
std::string round_then_cast(const analysis::Facts& facts, const ir::Node& cast, bool quoted_tensor) {
  const ir::Model& model = facts.model();
  // A number read from the quoted tensor (`t.item<int>()`, `t.item().toInt()`): `x` is that tensor,
  // which std::lround does not take (public C++ round 24: the advice did not compile).
  if (model.language == ir::Language::Cxx && quoted_tensor) return "`std::lround(x.item<float>())`";
  // `x.item()` quoted, a c10::Scalar (`x.item().toInt()`).
  if (model.language == ir::Language::Cxx && tensor_read(cast) != nullptr &&
      cast.inputs[0]->type.kind != ir::Type::Kind::Float)
    return "`std::lround(x.toDouble())`";
  if (model.language == ir::Language::Cxx && cast.inputs[0]->type.kind == ir::Type::Kind::Float)
    return "`std::lround(x)`";
  const ir::DType to = facts.dtype(cast.output());
  if (cast.kind != "aten::to" || to == ir::DType::Int64 || !ir::is_integral(to) || to == ir::DType::Bool)
    return ir::spelling(model).round_then_cast;
  std::string name = ir::dtype_name(to);  // "uint8"
  if (model.language != ir::Language::Cxx) return "`torch.round(x).to(torch." + name + ")`";
  name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));  // "Uint8"
  if (name[0] == 'U') name = "UInt" + name.substr(4);                              // "UInt8"
  return "`torch::round(x).to(torch::k" + name + ")`";
}

// Whether every way back from the cast's operand to a quant point passes a layer first: a layer
// with weights (`self.dequant(self.fc(self.quant(x)))`, scripted), or the output fake quant QAT
// gives a module (traced). Such a value is no whole number in float (a regression head's
// output, cast to pixel columns): the cast floors it as the float model does, up to the layer's
// quantization error, which moves a few values across a boundary (sim-divergence counts them
// with --input). Public round 26: a lane detector's columns were told "2.0 as 1.9997", and the
// fix ran the head again in float. A value whose way back qlint cannot follow (a caller's
// parameter, a container written in place) counts as not.
bool computed_by_layers(const analysis::Facts& facts, analysis::WeightedLayers& layers, const ir::Value* operand) {
  std::vector<const ir::Value*> pending = {operand};
  std::set<const ir::Value*> seen = {operand};
  while (!pending.empty()) {
    const ir::Value* v = pending.back();
    pending.pop_back();
    if (const analysis::QuantCall* call = facts.quant_call_producing(v)) {
      if (!facts.is_module_output_quant_point(call->point)) return false;
      continue;
    }
    const ir::Node* n = v->producer;
    if (n == nullptr || seen.size() > 4096) return false;
    if (!layers.of(*n).empty()) continue;
    // A call's result is what its callee returns (a traced QAT model's `self.net(x)`, whose
    // layer quantizes its output inside).
    if (const ir::Value* returned = ir::returned_for(facts.model(), *v)) {
      if (seen.insert(returned).second) pending.push_back(returned);
      continue;
    }
    // Quantized through no operand (a dict read after a store, a list a loop appends to): the
    // way back is not seen, so it may come from a stub without a layer.
    bool through_an_operand = false;
    for (const ir::Value* in : n->inputs) {
      if (!facts.quantized(in)) continue;
      through_an_operand = true;
      if (seen.insert(in).second) pending.push_back(in);
    }
    if (!through_an_operand) return false;
  }
  return true;
}

// The advice's `x` as the value the message quotes, in C++ code where that is a plain expression
// (`rows[0][5]`, `a[i][2]`): public C++ round 26's YOLO NMS had a tensor named `x` beside the
// quoted `rectangle[i][0]`, and "std::lround(x.item<float>())" read as rounding the whole tensor.
std::string advice_on(const ir::Model& model, std::string advice, const std::string& quoted) {
  static const std::regex plain(R"(`[A-Za-z_][A-Za-z0-9_.:<>\[\]()]{0,39}`)");
  if (model.language != ir::Language::Cxx || !std::regex_match(quoted, plain)) return advice;
  const size_t at = advice.find("(x");
  if (at != std::string::npos) advice.replace(at + 1, 1, quoted.substr(1, quoted.size() - 2));
  return advice;
}

std::string message(const analysis::Facts& facts, const ir::Node& node) {
  std::string value = ir::operand_text(facts.model(), node, 0);  // "`x[:, -1]`", or ""
  bool quoted_tensor = false;
  if (const ir::Node* item = tensor_read(node); value.empty() && item != nullptr) {
    value = ir::operand_text(facts.model(), *item, 0);
    quoted_tensor = !value.empty();
  }
  if (value.empty()) value = converted_text(facts.model(), node);
  if (value.empty()) value = "a value";
  const std::string stubs = describe_stubs(facts, node.inputs[0]);
  const std::string stub = ir::spelling(facts.model()).stub;
  // `floor(x).long()` means floor: rounding to nearest would change what the float model
  // computes, so the advice is the float value, never `round`.
  const std::string rounding = whole_number_rounding(rounding_producer(node));
  // A model's outputs: the float value is inside the model, before its quantization.
  const bool model = only_model_outputs(facts, node.inputs[0]);
  const std::string from_float =
      model ? "inside the model, before its quantization, and return the result" : "before the " + stub;
  if (!rounding.empty())
    return value + ", computed from values quantized by " + stubs + ", is rounded " + rounding + "; compute it " +
           (model ? "" : "from the float value ") + from_float +
           " (rounding to nearest instead would change the float model)";
  return value + ", quantized by " + stubs +
         ", is cast to integers, which truncates toward zero: a whole number that quantization moves just below "
         "itself (2.0 as 1.9997) loses one; if the value is meant to be whole, round before the cast (" +
         advice_on(facts.model(), round_then_cast(facts, node, quoted_tensor), value) +
         "); if the cast is meant to floor (a cell index from a coordinate), cast the float value " + from_float;
}

std::vector<Diagnostic> check(const analysis::Facts& facts) {
  std::vector<Diagnostic> out;
  analysis::WeightedLayers layers(facts);
  for_each_model_node(facts, [&](const ir::Function& fn, const ir::Node& node) {
    if (!is_integer_cast(facts, node)) return;
    const ir::Value* in = node.inputs[0];
    if (ir::is_integral(facts.dtype(in)) || facts.dtype(in) == ir::DType::Bool || !facts.quantized(in)) return;
    // Rounded first (`x.round().long()`): the error is gone unless it was half a step.
    const ir::Node* rounded = rounding_producer(node);
    if ((rounded != nullptr && ir::base_op(rounded->kind) == "round") || rounds_half_up(rounded)) return;
    if (computed_by_layers(facts, layers, in)) return;
    Diagnostic d = make_diagnostic(truncating_cast_rule(), fn, node, message(facts, node));
    // The float model casts the float value: casting the stub's float input keeps its floor
    // (voxel indices mean floor; rounding would change the float model).
    std::string refusal;
    auto edit = reroot_edit(facts, node, 0, &refusal);
    // Read from quantized weights on the way (a helper's copy on a layer's output), the float
    // input still carries rounding, and its cast still truncates (public round 18: the copy was
    // "fixed the same", and its finding stayed).
    if (edit && !shadow_is_exact(facts, edit->shadow)) {
      refusal = "no automatic fix: the float input of " + describe_stubs(facts, in) +
                " is itself computed from quantized values, so its cast would still truncate";
      edit.reset();
    }
    if (edit)
      d.fixes.push_back(safe_fix("cast the float input of " + describe_stubs(facts, in) + " instead", {*edit}));
    else if (!refusal.empty())
      d.notes.push_back(refusal);
    out.push_back(d);
  });
  return out;
}

}  // namespace

const Rule& truncating_cast_rule() {
  static const Rule rule = [] {
    Rule r;
    r.id = "truncating-cast";
    r.summary = "a quantized value cast to an integer, which truncates";
    r.severity = Severity::Warning;
    r.check = check;
    r.doc.what =
        "A value that passed a QuantStub (or another quant point) cast to an integer: `x.long()`, "
        "`x.to(torch.int64)`, `x.type_as(ids)` with an integer `ids`, `int(x.item())`.";
    r.doc.why =
        "Casting to an integer truncates toward zero. Quantization moves a whole number to the nearest "
        "multiple of the scale, which is as often just below it: at int16 with values up to 7.3, 2.0 "
        "becomes 1.99994 and `.long()` makes it 1. Class ids, counts or indices carried in a tensor then "
        "select the wrong class or row, in some elements and not others, depending on the data's range. "
        "A value rounded before the cast is not reported: `round(x)`, or `x + 0.5`, the rounding of "
        "non-negative values into 8-bit pixels. Nor is a value a layer computed after the quant point (a "
        "Linear's or convolution's output, a regression head's coordinates cast to pixel columns): it is no "
        "whole number in float, and the cast floors it as the float model does, up to the layer's "
        "quantization error; where that moves values across a boundary, `check --input` counts the changed "
        "integers (sim-divergence).";
    r.doc.example =
        "    x = self.quant(x)\n"
        "    ids = x[:, -1].long()          # 2.0 is 1.99994 here: id 1\n"
        "    hit = ids == 2";
    r.doc.fix =
        "Round before the cast, so that an error smaller than half a step disappears:\n"
        "    ids = torch.round(x[:, -1]).long()\n"
        "or take the integers from the float input, before the QuantStub. Where the code floors on purpose "
        "(`torch.floor(xy / size).long()`, `div(..., rounding_mode='floor')`: voxel and grid indices), "
        "rounding would change the float model; compute the floor from the float input instead, which is "
        "what `--fix` does.";
    r.doc.fix_safety =
        "Safe, where the cast's value can be recomputed from the float input of its quant point (a view "
        "of the stub's output, or values computed from it in the same function, as eq-nonzero-const's "
        "fix): `--fix` casts that float value instead, which is what the float model casts, so float "
        "results are identical by construction and the integers are the float model's, floor and all "
        "(rounding would change the float model for values that are not whole numbers, so `--fix` never "
        "rounds). Scripted models, traced QAT and FX alike; elsewhere the finding says why there is no fix.";
    r.cxx.summary = "a quantized value cast to an integer, which truncates";
    r.cxx.what =
        "A value computed from a quantizing call cast to an integer: `x.to(torch::kLong)`, "
        "`x.toType(torch::kInt)`, `static_cast<int64_t>(x.item<float>())`.";
    r.cxx.example =
        "    torch::Tensor x = seed::quantize_int16(input);\n"
        "    torch::Tensor ids = x.index({Slice(), -1}).to(torch::kLong);  // 2.0 is 1.99994: id 1";
    r.cxx.fix =
        "Cast the float value, before the quantize call, or round first:\n"
        "    torch::Tensor ids = torch::round(x.index({Slice(), -1})).to(torch::kLong);";
    r.cxx.fix_safety =
        "Casting the float input instead changes what the program computes, so it is an unsafe fix "
        "(`--unsafe-fixes`); qlint never turns the truncation into rounding.";
    return r;
  }();
  return rule;
}

}  // namespace qlint::rules
