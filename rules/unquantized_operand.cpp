// unquantized-operand: a float tensor computed from the model's input without ever passing
// a quant point, combined in arithmetic with a quantized tensor. The accelerator has no
// scale for it: the toolchain guesses one on the fly or runs the op on the CPU.
#include <cmath>
#include <deque>
#include <optional>
#include <set>
#include <string>

#include "analysis/comparisons.h"
#include "analysis/constants.h"
#include "ir/ops.h"
#include "ir/schema.h"
#include "ir/spelling.h"
#include "rules/registry.h"
#include "rules/support.h"

namespace qlint::rules {

namespace {

// A float (or unknown-dtype) tensor that depends on a model input and is neither quantized
// nor carrying a dequantized value. Weights, buffers, constants and scalars are not inputs.
bool is_unquantized_input_tensor(const analysis::Facts& facts, const ir::Value* v) {
  if (!v->type.is_tensor() || !facts.from_input(v) || facts.quantized(v)) return false;
  ir::DType d = facts.dtype(v);
  return d == ir::DType::Unknown || ir::is_floating(d);
}

// A bool tensor computed from the model's input (a padding mask): `torch.cat` promotes it to the
// float 0/1 it joins, where arithmetic on it is bool-arith's business. Its dtype is known once
// `--input` has run the model: it must be found with inputs as without.
bool is_bool_input_tensor(const analysis::Facts& facts, const ir::Value* v) {
  return v->type.is_tensor() && facts.from_input(v) && !facts.quantized(v) && facts.dtype(v) == ir::DType::Bool;
}

// Whether the op runs in PyTorch's own code: its range is there (scripted), or a trace put it on
// the user's line that calls that code, which does not spell the op (`self.attn(q, k, v,
// key_padding_mask=pad)` for the attention's `baddbmm`).
bool inside_a_library_call(const ir::Model& model, const ir::Node& node) {
  if (in_library_code(node.loc) || node.loc.called_library) return true;
  // Else the line's text, when qlint may read it: a stack that kept only the user's frame.
  const std::string* line = node.loc.known() ? model.source_line(node.loc.file, node.loc.line) : nullptr;
  return line != nullptr && line->find(ir::base_op(node.kind)) == std::string::npos;
}

bool is_fill(const ir::Node& n) {
  static const std::set<std::string> fills = {"masked_fill", "fill", "full", "full_like", "new_full", "index_put"};
  return fills.count(ir::base_op(n.kind)) > 0;
}

// The value with which a node masks, when it fills with an infinite constant or a stand-in beyond
// any score (`masked_fill(pad, -inf)`, `masked_fill(adj == 0, -1e20)`, `torch.full(..., -inf)`, in
// place `mask[d > c] = float("-inf")`) or scales a shifted 0/1 mask to such a bias
// (`(1.0 - m) * torch.finfo(dtype).min`). Public round 20's trajectory transformer filled with
// -1e20, and was told to give that a stub of its own: a scale of 3.9e17.
std::optional<double> masking_value(const ir::Node& n) {
  constexpr double kStandInForInfinity = 1000;  // as analysis::masking_bias: beyond any attention score
  if (is_fill(n)) {
    for (const ir::Value* in : n.inputs)
      if (auto c = analysis::scalar_constant(in); c && std::isinf(*c)) return c;
    // A finite stand-in only as the value filled in, not as a size (`torch.full((2048, 2048), 0.0)`).
    for (const char* name : {"value", "fill_value", "values"}) {
      const ir::Value* filled = ir::named_operand(n, name);
      if (auto c = filled ? analysis::scalar_constant(filled) : std::nullopt; c && std::fabs(*c) >= kStandInForInfinity)
        return c;
    }
  }
  if (auto bias = analysis::masking_bias(n)) return bias->factor;
  return std::nullopt;
}

// What `v` masks with on its way (an additive attention mask: `zeros.masked_fill(pad, -inf)`,
// `(1.0 - m) * -10000.0`), through views, casts and the ops that keep it in, writes in place into
// it, and the calls it is passed through (a mask built in forward and passed into every layer):
// no scale quantizes it with the data, so a quant point of its own is no advice.
std::optional<double> masks_with(const ir::Model& model, const ir::Value* v) {
  static const std::set<std::string> keeping = {
      "to",     "type_as",           "float",     "add", "sub", "unsqueeze", "expand", "view", "reshape",
      "repeat", "repeat_interleave", "contiguous"};
  std::deque<const ir::Value*> pending = {v};
  std::set<const ir::Value*> seen;
  std::optional<double> found;
  while (!pending.empty() && !found && seen.size() < 64) {
    const ir::Value* value = pending.front();
    pending.pop_front();
    if (!seen.insert(value).second) continue;
    add_values_across_calls(model, *value, pending);
    for_each_write_into(*value, [&](const ir::Node& writer) { found = found ? found : masking_value(writer); });
    const ir::Node* p = value->producer;
    if (p == nullptr || p->inputs.empty()) continue;
    if (auto masking = masking_value(*p)) return masking;
    if (is_fill(*p) || keeping.count(ir::base_op(p->kind)) || ir::is_view_op(*p) || ir::writes_in_place(*p, 0))
      pending.push_back(p->inputs[0]);
  }
  return found;
}

// The end of a message on an operand without a quant point, for every spelling of the product.
std::string no_scale_advice(const analysis::Facts& facts) {
  return "; the toolchain has no scale for it and must guess one or run the op on the CPU; pass it through " +
         ir::spelling(facts.model()).own_stub;
}

// `masking`: what the plain operand masks with, if it does (masks_with).
std::string message(const analysis::Facts& facts, const ir::Node& node, int plain_side, std::optional<double> masking) {
  const ir::Value* quantized = node.inputs[1 - plain_side];
  std::string plain_text = ir::operand_text(facts.model(), node, plain_side);
  std::string q_text = ir::operand_text(facts.model(), node, 1 - plain_side);
  const std::string combines =
      "`" + ir::operator_spelling(node.kind) + "` combines " +
      (q_text.empty() ? "a quantized tensor" : q_text + ", quantized by " + describe_stubs(facts, quantized) + ",") +
      " with " + (plain_text.empty() ? "a float tensor" : plain_text) + ", which never passed a " +
      ir::spelling(facts.model()).stub;
  const std::string keep_out =
      "; keep it out of the quantized domain: apply the bool mask with masked_fill after the quantized op";
  if (masking && std::isinf(*masking))
    return combines + " and holds infinity (a mask filled with -inf), which no scale quantizes" + keep_out;
  if (masking)
    return combines + " and holds " + format_number(*masking) +
           " where it masks (a stand-in for -inf), which no scale quantizes together with the values it is added to" +
           keep_out;
  return combines + no_scale_advice(facts);
}

// The operand gets a quant point of its own: a new QuantStub, or in a traced QAT model a clone
// of the model's own fake quant.
// `mask`: the operand is a bool tensor (a padding mask joined by `cat`), cast to float for it.
void add_own_quant_point_fix(const analysis::Facts& facts, const ir::Node& consumer, int operand, Diagnostic& d,
                             bool mask = false) {
  if (auto edit = quantize_operand_edit(facts, consumer, operand, mask))
    d.fixes.push_back(safe_fix("quantize the operand with " + ir::spelling(facts.model()).new_stub, {*edit}));
  else if (auto fake = fake_quantize_operand_edit(facts, consumer, operand, mask))
    d.fixes.push_back(new_fake_quant_fix("fake-quantize the operand with a new fake quant", *fake));
  else if (std::string why = no_new_stub_reason(facts, consumer); !why.empty())
    d.notes.push_back(std::move(why));
}

// The quant points of every quantized part of a joined list, each named once (public
// forecast-mae joined positions and velocities of two stubs: only the first was named).
std::string joined_stubs(const analysis::Facts& facts, const ir::Node& list) {
  std::vector<std::string> named;
  for (const ir::Value* part : list.inputs) {
    if (!facts.in_quantized_domain(part)) continue;
    const std::string stubs = describe_stubs(facts, part, &list);
    if (!stubs.empty() && std::find(named.begin(), named.end(), stubs) == named.end()) named.push_back(stubs);
  }
  return listed(named);
}

// `torch.cat([q, mask.to(torch.float)])` after the stub: the joined tensor has one scale, set
// by the quantized part, and the unquantized part (often a 0/1 mask) gets no scale of its own.
void check_joined_tensors(const analysis::Facts& facts, std::vector<Diagnostic>& out) {
  for_each_model_node(facts, [&](const ir::Function& fn, const ir::Node& node) {
    if ((node.kind != "aten::cat" && node.kind != "aten::stack") || node.inputs.empty()) return;
    // The C++ front end's spelling of a column written in place (`dets.select(1, 5) = ids`): a
    // store into a float tensor, not a join that a conversion would quantize with one scale.
    if (node.attr("column_write") != nullptr) return;
    const ir::Node* list = node.inputs[0]->producer;
    if (list == nullptr || list->kind != "prim::ListConstruct") return;
    int quantized_parts = 0;
    const ir::Value* plain = nullptr;
    int plain_item = 0;
    // Every unquantized part is named (public round 27: `torch.stack([score, ratio, ok.float()])`
    // named `ratio` only, and the fix's second fake quant, for `ok.float()`, seemed to be on nothing).
    std::vector<std::string> named;
    for (size_t i = 0; i < list->inputs.size(); ++i) {
      const ir::Value* part = list->inputs[i];
      if (facts.in_quantized_domain(part)) ++quantized_parts;
      if (!is_unquantized_input_tensor(facts, part) && !is_bool_input_tensor(facts, part)) continue;
      if (plain == nullptr) plain = part, plain_item = static_cast<int>(i);
      const std::string name = ir::written_name(facts.model(), part);
      named.push_back(name.empty() ? "a float tensor" : "`" + name + "`");
    }
    if (quantized_parts == 0 || plain == nullptr) return;
    const bool bool_mask = is_bool_input_tensor(facts, plain);
    Diagnostic d = make_diagnostic(
        unquantized_operand_rule(), fn, node,
        "`" + ir::op_spelling(facts.model(), node.kind) + "` joins " + (quantized_parts == 1 ? "a tensor" : "tensors") +
            " quantized by " + joined_stubs(facts, *list) + " with " + listed(named) + ", which never passed a " +
            ir::spelling(facts.model()).stub + "; the joined tensor gets one scale, so " +
            (named.size() == 1 ? "that part (" : "those parts (the first, ") +
            (holds_whole_numbers(facts, plain) ? "whole numbers, such as class ids"
             : bool_mask                       ? "a bool mask, joined as 0 and 1"
                                               : "often a 0/1 mask") +
            (named.size() == 1 ? ") is rounded at a scale that was never calibrated for it; pass it through "
                               : ") are rounded at a scale that was never calibrated for them; pass each through ") +
            ir::spelling(facts.model()).own_stub);
    // The list item gets its quant point: the same edit as for an operand of arithmetic.
    add_own_quant_point_fix(facts, *list, plain_item, d, bool_mask);
    out.push_back(std::move(d));
  });
}

// `torch.einsum("bhqd,bhkd->bhqk", q, k)`: a matrix product spelled with an equation (transformer
// code writes attention this way as often as with `@`). TorchScript passes the operands as one
// list; FX records them as the call's arguments after the equation.
void check_einsum_operands(const analysis::Facts& facts, std::vector<Diagnostic>& out) {
  for_each_model_node(facts, [&](const ir::Function& fn, const ir::Node& node) {
    if (node.kind != "aten::einsum" || node.inputs.size() < 2) return;
    const ir::Node* list = node.inputs[1]->producer;
    const bool listed = list != nullptr && list->kind == "prim::ListConstruct";
    const ir::Node& holder = listed ? *list : node;
    const ir::Value* quantized = nullptr;
    int plain = -1;
    for (size_t i = listed ? 0 : 1; i < holder.inputs.size(); ++i) {
      const ir::Value* part = holder.inputs[i];
      if (quantized == nullptr && facts.in_quantized_domain(part)) quantized = part;
      if (plain < 0 && is_unquantized_input_tensor(facts, part)) plain = static_cast<int>(i);
    }
    if (quantized == nullptr || plain < 0) return;
    const std::string name = ir::written_name(facts.model(), holder.inputs[static_cast<size_t>(plain)]);
    Diagnostic d =
        make_diagnostic(unquantized_operand_rule(), fn, node,
                        "`" + ir::op_spelling(facts.model(), node.kind) + "` multiplies a tensor quantized by " +
                            describe_stubs(facts, quantized, &holder) + " with " +
                            (name.empty() ? "a float tensor" : "`" + name + "`") + ", which never passed a " +
                            ir::spelling(facts.model()).stub + no_scale_advice(facts));
    add_own_quant_point_fix(facts, holder, plain, d);
    out.push_back(std::move(d));
  });
}

// A QAT layer: a module whose weights a fake quant rounds (`lin.weight_fake_quant`) and whose
// output one quantizes (`lin.activation_post_process`). Converted, it is a quantized kernel,
// which takes a quantized tensor. Weight-only QAT (an Identity there) keeps activations float.
bool is_quantized_layer(const ir::Model& model, const std::string& path) {
  const std::string prefix = path.empty() ? "" : path + ".";
  const ir::ModuleInfo* output = model.find_module(prefix + "activation_post_process");
  return model.find_module(prefix + "weight_fake_quant") != nullptr && output != nullptr &&
         output->class_name.find("FakeQuantize") != std::string::npos;
}

// "Linear" of "__torch__.torch.ao.nn.qat.modules.linear.___torch_mangle_202.Linear".
std::string short_class_name(const std::string& name) {
  const size_t dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

// `self.grid_enc(grid)`, with `grid` computed from the inputs and never quantized, while the
// layer's weights are (public round 19's trajectory pooling: an occupancy grid into a QAT
// Linear). Nothing gives the layer's input a scale: `convert()` then hands the quantized kernel
// a float tensor (`quantized::linear` fails), and a toolchain must guess one.
void check_layer_inputs(const analysis::Facts& facts, std::vector<Diagnostic>& out) {
  for_each_model_node(facts, [&](const ir::Function& fn, const ir::Node& node) {
    if (node.kind != "prim::CallMethod") return;
    const ir::Function* callee = ir::callee_of(facts.model(), node);
    if (callee == nullptr || callee->method != "forward" || !is_quantized_layer(facts.model(), callee->module_path))
      return;
    for (size_t i = 1; i < node.inputs.size(); ++i) {
      const ir::Value* in = node.inputs[i];
      if (!in->type.is_tensor() || !facts.from_input(in) || facts.in_quantized_domain(in)) continue;
      if (const ir::DType d = facts.dtype(in); d != ir::DType::Unknown && !ir::is_floating(d)) continue;
      const ir::ModuleInfo* layer = facts.model().find_module(callee->module_path);
      const std::string name = ir::written_name(facts.model(), in);
      Diagnostic d = make_diagnostic(
          unquantized_operand_rule(), fn, node,
          "`self." + callee->module_path + "` is a quantized layer (QAT `" +
              (layer ? short_class_name(layer->class_name) : std::string("module")) +
              "`, its weights fake-quantized), and " + (name.empty() ? "its input" : "its input `" + name + "`") +
              (facts.quantized(in) ? " was dequantized back to float"
                                   : " never passed a " + ir::spelling(facts.model()).stub) +
              ": converted, the layer's quantized kernel gets a float tensor, and a toolchain has no scale for it; "
              "pass it through " +
              ir::spelling(facts.model()).own_stub);
      d.loc = module_call_location(facts, node);
      add_own_quant_point_fix(facts, node, static_cast<int>(i), d);
      out.push_back(std::move(d));
      return;
    }
  });
}

// `scores + (1.0 - m) * -10000.0` with `m` through a stub of its own (the tutorial's "a stub at
// every input"; public round 29's DenseTNT): the 0/1 mask is exact, but the bias made of it holds
// the stand-in, and the sum needs one scale for it and the scores, whose values then round to a
// few steps (int8: 39 a step for -10000). The same hazard as with a float mask, said so.
std::string quantized_bias_message(const analysis::Facts& facts, const ir::Node& node, int bias_side, double masking) {
  const std::string bias = ir::operand_text(facts.model(), node, bias_side);
  const std::string data = ir::operand_text(facts.model(), node, 1 - bias_side);
  const std::string holds =
      std::isinf(masking)
          ? "holds infinity where it masks, which no scale quantizes"
          : "holds " + format_number(masking) +
                " where it masks (a stand-in for -inf), and one scale for the sum leaves the values beside it a step "
                "of " +
                format_number(std::fabs(masking) / 255) + " at 8 bits";
  return "`" + ir::operator_spelling(node.kind) + "` adds " + (bias.empty() ? "an additive mask" : bias) + " to " +
         (data.empty() ? "a quantized tensor"
                       : data + ", quantized by " + describe_stubs(facts, node.inputs[1 - bias_side])) +
         "; although its 0/1 mask passed a quant point, the added mask " + holds +
         "; keep it out of the quantized domain: apply the bool mask with masked_fill after the quantized op";
}

// The additive masks made in the quantized domain, added to quantized data (`+`, `-`).
bool check_quantized_masking_bias(const analysis::Facts& facts, const ir::Function& fn, const ir::Node& node, int side,
                                  std::vector<Diagnostic>& out) {
  const std::string op = ir::base_op(node.kind);
  if ((op != "add" && op != "sub") || node.inputs.size() < 2 || !facts.in_quantized_domain(node.inputs[side]) ||
      !facts.in_quantized_domain(node.inputs[1 - side]))
    return false;
  const std::optional<double> masking = masks_with(facts.model(), node.inputs[static_cast<size_t>(side)]);
  if (!masking) return false;
  out.push_back(
      make_diagnostic(unquantized_operand_rule(), fn, node, quantized_bias_message(facts, node, side, *masking)));
  return true;
}

std::vector<Diagnostic> check(const analysis::Facts& facts) {
  std::vector<Diagnostic> out;
  check_layer_inputs(facts, out);
  check_joined_tensors(facts, out);
  check_einsum_operands(facts, out);
  auto combines = [](const std::string& kind) { return is_binary_arithmetic(kind) || is_matrix_product(kind); };
  for_each_operand_side(facts, combines, [&](const ir::Function& fn, const ir::Node& node, int side) {
    // A fused form adds its first operand to the product of the next two: that operand meets
    // the product, whichever of its factors is quantized.
    const bool fused = is_fused_multiply_add(node.kind);
    if (fused && (side != 0 || node.inputs.size() < 3)) return false;
    if (!fused && check_quantized_masking_bias(facts, fn, node, side, out)) return true;
    const bool other_quantized =
        fused ? facts.in_quantized_domain(node.inputs[1]) || facts.in_quantized_domain(node.inputs[2])
              : facts.in_quantized_domain(node.inputs[1 - side]);
    if (!is_unquantized_input_tensor(facts, node.inputs[side]) || !other_quantized) return false;
    // nn.MultiheadAttention's own `baddbmm` of its additive mask: toolchains map the attention
    // as one unit (and quantizable MHA keeps the mask in float); the same op in the user's code
    // is reported.
    if (is_fused_multiply_add(node.kind) && inside_a_library_call(facts.model(), node)) return false;
    const std::optional<double> masking = masks_with(facts.model(), node.inputs[static_cast<size_t>(side)]);
    Diagnostic d = make_diagnostic(unquantized_operand_rule(), fn, node, message(facts, node, side, masking));
    if (!masking) add_own_quant_point_fix(facts, node, side, d);
    out.push_back(d);
    return true;
  });
  return out;
}

}  // namespace

const Rule& unquantized_operand_rule() {
  static const Rule rule = [] {
    Rule r;
    r.id = "unquantized-operand";
    r.summary = "a float tensor that never passed a QuantStub combined with a quantized tensor";
    r.severity = Severity::Warning;
    r.check = check;
    r.doc.what =
        "Arithmetic (`*`, `+`, `-`, `/`, matrix products `@`/`torch.matmul`/`bmm`/`mm`/`torch.einsum`, and the first "
        "operand of `torch.baddbmm`/`addmm`/`addcmul`, which is added) between a tensor in the quantized domain and a "
        "float "
        "tensor computed from a model input that never passed a QuantStub. Constants, Python "
        "scalars, weights and buffers are fine: the toolchain quantizes those itself, and so are the "
        "values picked from one by indices the data chose (`self.priors[keep]`). Values "
        "after a DeQuantStub are back in float and fine too. In a QAT model, a quantized layer (a module whose "
        "weights and output are fake-quantized) called on a float tensor computed from the inputs that never passed "
        "a stub (an occupancy grid built from positions) is reported at the call: converted, its quantized kernel "
        "gets a float tensor, and `--fix` gives that input a clone of the layer's output fake quant. An additive "
        "attention mask (`(1.0 - m) * -10000.0`, a fill with -inf or a stand-in beyond any score) added to quantized "
        "data is reported whether or not its 0/1 mask passed a QuantStub: the sum needs one scale for the stand-in "
        "and the scores, which then round to a few steps of it.";
    r.doc.why =
        "Every tensor entering the accelerator needs a scale, and only quant points give one. "
        "Without it the toolchain either derives a scale on the fly (from whatever data it "
        "sees at conversion) or keeps the op on the CPU, splitting the graph; both change "
        "the results or the speed you measured in float.";
    r.doc.example =
        "    def forward(self, x, bias):\n"
        "        x = self.quant(x)\n"
        "        return self.dequant(x + bias)     # bias never passed a stub";
    r.doc.fix =
        "Give the operand a QuantStub of its own, so it is calibrated with its own range:\n"
        "        bias = self.quant_bias(bias)\n"
        "        return self.dequant(x + bias)\n"
        "In a traced QAT model `--fix` passes the operand through a clone of the model's own "
        "FakeQuantize module (registered on the module and called like the others), starting at the "
        "scale it calibrates on `--input` on that operand alone (refused without inputs): a fused "
        "fake quant of PyTorch's default qconfig computes it from the observed range in the model's "
        "own scheme, as the model's do. An operand filled with -inf (an additive attention mask, "
        "`zeros.masked_fill(pad, float(\"-inf\"))`, or `mask[d > r] = float(\"-inf\")` in place, also in the "
        "method that builds it and passes it on) or with a stand-in of magnitude 1000 or more "
        "(`adj.masked_fill(adj == 0, -1e20)`, `(1.0 - m) * -10000.0`) gets none: no scale holds infinity, and "
        "one spanning the stand-in rounds the data it is added to away, so the finding "
        "says to keep it out of the quantized domain and apply the bool mask with `masked_fill` after "
        "the quantized op; one that holds infinity (or a stand-in reaching 10000) only on the inputs is "
        "refused when `--fix` measures it.";
    r.doc.fix_safety =
        "Safe in scripted and traced QAT models: a QuantStub, like a FakeQuantize clone that the model's "
        "disable_fake_quant reaches, is the identity in float, so float results do not change; the "
        "clone's scale predates re-calibration, so re-run QAT calibration. FX exports get the Python "
        "change only (`--diff`); converted models have no fix. A tensor joined with `torch.cat`/`stack` "
        "gets its quant point on the list item; in a free function (or a method of a class that is no "
        "module, such as a box coder object), the function's calls are inlined "
        "into the calling methods first, one per round (as for bool-arith); a function called only from "
        "other free functions gets the calls that lead to it from a method inlined too (up to four "
        "levels; beyond, no fix, and the finding says so). So are the calls of a method "
        "called from several places with a tensor its caller passes (`self.with_pos_embed(x, pos)` for "
        "queries and keys): one stub in its body would quantize every call's tensor with one scale; the "
        "Python suggestion is then a note (quantize the argument at each call). One tensor read on two lines "
        "gets one new stub.";
    r.onnx_fix =
        "`--fix` gives an operand that is a bool cast to a number (a 0/1 mask: the exporter's `Cast` before `Mul`) a "
        "QuantizeLinear/DequantizeLinear pair of scale 1 and zero point 0, where 0 and 1 are exact. Safe: the pair is "
        "the identity in float. Other operands need a calibrated scale, which qlint cannot compute without running the "
        "model.";
    r.cxx.summary = "a float tensor that never passed a quantize call combined with a quantized tensor";
    r.cxx.what =
        "Arithmetic (`*`, `+`, `-`, `/`) between a tensor computed from a quantizing call and a float "
        "tensor computed from a function's parameters that never passed one, and a `torch::cat` or "
        "`torch::stack` that joins such tensors (the joined tensor gets one scale). The float tensor "
        "may be computed from the quantized one without a quantize call of its own: a mask "
        "`(q > 0).to(torch::kFloat)`, or class ids `q.argmax(1, true).to(torch::kFloat)` joined beside "
        "boxes, hold values (0 and 1; whole numbers up to the class count) that the quantized tensor's scale was not "
        "calibrated "
        "for. Code after a quantize call is read as the quantized code a toolchain runs until "
        "`.dequantize()`, also after `fake_quantize_per_tensor_affine`, which stands for such a "
        "toolchain's rounding though its result is a float tensor. Constants, scalars, values after "
        "`.dequantize()` and the outputs of a TorchScript model (the code after a model computes in "
        "float) are fine.";
    r.cxx.example =
        "    torch::Tensor x = seed::quantize_int16(input);\n"
        "    return x + bias;  // bias never passed a quantize call";
    r.cxx.fix =
        "Give the operand its own quantize call:\n"
        "    return x + seed::quantize_int16(bias);";
    r.cxx.fix_safety =
        "Safe where the quantize call takes only the tensor: read as the identity, the result is the "
        "same in float.";
    return r;
  }();
  return rule;
}

}  // namespace qlint::rules
