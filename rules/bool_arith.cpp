// bool-arith: a bool tensor as an operand of mul/add/sub/div next to a quantized operand.
// Accelerator toolchains cannot quantize a bool tensor; they insert a bool-to-float cast that
// runs on the CPU and splits the accelerator graph (SPEC S2).
#include "ir/spelling.h"
#include "rules/registry.h"
#include "rules/support.h"

namespace qlint::rules {

namespace {

bool is_bool_tensor(const analysis::Facts& facts, const ir::Value* v) {
  return v->type.is_tensor() && facts.dtype(v) == ir::DType::Bool;
}

std::string message(const analysis::Facts& facts, const ir::Node& node, int side) {
  std::string text = ir::operand_text(facts.model(), node, side);
  std::string subject = text.empty() ? "a bool tensor" : "the bool tensor " + text;
  return "`" + ir::written_operator(facts.model(), node) + "` mixes a quantized tensor with " + subject +
         "; accelerator toolchains insert a bool-to-float cast for it that runs on the CPU and "
         "splits the graph; cast it with " +
         ir::spelling(facts.model()).float_cast + " and give it " + ir::spelling(facts.model()).its_own_stub;
}

std::vector<Diagnostic> check(const analysis::Facts& facts) {
  std::vector<Diagnostic> out;
  // The fused forms (`baddbmm`, `addmm`) take no bool operand: PyTorch refuses one.
  auto arithmetic = [](const std::string& kind) { return is_binary_arithmetic(kind) && !is_fused_multiply_add(kind); };
  for_each_operand_side(facts, arithmetic, [&](const ir::Function& fn, const ir::Node& node, int side) {
    if (!is_bool_tensor(facts, node.inputs[side]) || !facts.in_quantized_domain(node.inputs[1 - side])) return false;
    Diagnostic d = make_diagnostic(bool_arith_rule(), fn, node, message(facts, node, side));
    if (auto edit = quantize_operand_edit(facts, node, side, true))
      d.fixes.push_back(
          safe_fix("cast the mask to float and quantize it with " + ir::spelling(facts.model()).new_stub, {*edit}));
    else if (auto fake = fake_quantize_operand_edit(facts, node, side, true))
      d.fixes.push_back(new_fake_quant_fix("cast the mask to float and fake-quantize it with a new fake quant", *fake));
    else if (std::string why = no_new_stub_reason(facts, node); !why.empty())
      d.notes.push_back(std::move(why));
    out.push_back(d);
    return true;
  });
  return out;
}

}  // namespace

const Rule& bool_arith_rule() {
  static const Rule rule = [] {
    Rule r;
    r.id = "bool-arith";
    r.summary = "bool tensor in arithmetic with a quantized tensor (CPU fallback)";
    r.severity = Severity::Warning;
    r.check = check;
    r.doc.what =
        "A bool tensor used as an operand of `*`, `+`, `-` or `/` (`aten::mul`, `add`, `sub`, "
        "`div`, `rsub`) whose other operand carries quantization.";
    r.doc.why =
        "Float PyTorch promotes the bool tensor silently. An accelerator graph has no bool "
        "arithmetic: the toolchain inserts a bool-to-float cast that runs on the CPU, so the "
        "model is split into accelerator and CPU parts with a round trip between them.";
    r.doc.example =
        "    x = self.quant(x)\n"
        "    mask = torch.logical_not(x[:, :, :, -1] == 0)   # bool\n"
        "    out = x * mask[:, :, :, None]                   # CPU fallback";
    r.doc.fix =
        "Cast the mask to float and give it a QuantStub of its own, so both operands are "
        "quantized and the whole graph stays on the accelerator:\n"
        "    mask = self.quant_mask(mask.to(torch.float))\n"
        "    out = x * mask[:, :, :, None]\n"
        "In a traced QAT model, whose stubs are calibrated FakeQuantize modules, `--fix` casts the "
        "mask and passes it through a clone of the model's own FakeQuantize (registered on the module "
        "and called like the others) at scale 1 and zero point 0, where 0 and 1 are exact; when the "
        "clone cannot keep them exact (a fused fake quant whose observer is still on moves its scale), "
        "through a `fake_quantize_per_tensor_affine` op at that scale instead.";
    r.doc.fix_safety =
        "Safe in every flow (scripted, traced QAT, FX): a 0/1 float mask multiplies exactly like the "
        "bool mask in float, and a dedicated stub or fake quant quantizes 0 and 1 exactly. FX exports get "
        "the Python change only (`--diff`); converted models have no fix. In a free function (a "
        "`@torch.jit.script` helper of a utils module), which has no module to hold a stub, `--fix` inlines "
        "the function's call into the calling method and quantizes there (the same ops in the same "
        "order); the Python change is described in a note, not written. A helper called from several "
        "places gets one call inlined per round, each with a stub of its own, until no call is left; so does "
        "a method called from several places with a mask its caller passes.";
    r.cxx.summary = "bool tensor in arithmetic with a quantized tensor (CPU fallback)";
    r.cxx.what =
        "A bool tensor (a comparison's result, `torch::kBool`) used as an operand of `*`, `+`, `-` or `/` "
        "(operators or `.mul()`, `.add()`, ...) whose other operand comes from a quantizing call.";
    r.cxx.example =
        "    torch::Tensor x = seed::quantize_int16(input);\n"
        "    torch::Tensor mask = x.index({Slice(), Slice(), Slice(), -1}) != 0;  // bool\n"
        "    return x * mask.index({Slice(), Slice(), Slice(), None});         // CPU fallback";
    r.cxx.fix =
        "Cast the mask with `.to(torch::kFloat)` and give it a quantize call of its own:\n"
        "    return x * seed::quantize_int16(mask.index({Slice(), Slice(), Slice(), None}).to(torch::kFloat));";
    r.cxx.fix_safety =
        "Safe where the quantize call takes only the tensor (a project's own `quant-functions`): read as "
        "the identity, the new call and the cast change nothing in float. A call with more arguments "
        "(`at::quantize_per_tensor(x, scale, ...)`) gets no new call, since qlint cannot choose its scale; "
        "a note says so.";
    return r;
  }();
  return rule;
}

}  // namespace qlint::rules
