// dtype inference, the quant-domain facts, and the fake-quant formula, on small text IR.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/dtype.h"
#include "analysis/facts.h"
#include "analysis/fake_quant.h"
#include "analysis/float_shadow.h"
#include "ir/text.h"

namespace qlint {
namespace {

class FactsOf {
 public:
  explicit FactsOf(const std::string& body)
      : parsed_(ir::parse_model(
            "qlint-ir 1\n"
            "module \"\" \"M\"\n"
            "module \"quant\" \"__torch__.torch.ao.quantization.stubs.QuantStub\"\n"
            "module \"dequant\" \"__torch__.torch.ao.quantization.stubs.DeQuantStub\"\n"
            "func \"forward\" in \"quant\" (%self : Module<quant>, %x : Tensor) {\n  return (%x)\n}\n"
            "func \"forward\" in \"dequant\" (%self : Module<dequant>, %x : Tensor) {\n  return (%x)\n}\n"
            "func \"forward\" in \"\" (%self : Module<>, %x : Tensor, %i : Tensor(int64), %b : Tensor(bool)) {\n"
            "  %none : NoneType = prim::Constant()\n"
            "  %false : bool = prim::Constant[value=false]()\n"
            "  %one : int = prim::Constant[value=1]()\n"
            "  %half : float = prim::Constant[value=0.5]()\n"
            "  %quant : Module<quant> = prim::GetAttr[name=\"quant\"](%self)\n"
            "  %q : Tensor = prim::CallMethod[name=\"forward\", callee=\"quant.forward\"](%quant, %x)\n"
            "  %dequant : Module<dequant> = prim::GetAttr[name=\"dequant\"](%self)\n" +
            body + "  return (%x)\n}\n")),
        facts_(analysis::Facts::compute(parsed_.model)) {}

  const ir::Value* value(const std::string& name) const {
    const ir::Function* f = parsed_.model.find_function("forward");
    const ir::Value* found = nullptr;
    for (const auto& v : f->values)
      if (v->name == name) found = v.get();
    if (found == nullptr) throw std::runtime_error("no value %" + name);
    return found;
  }
  ir::DType dtype(const std::string& name) const { return facts_.dtype(value(name)); }
  const analysis::Facts& facts() const { return facts_; }

 private:
  ir::ParsedModel parsed_;
  analysis::Facts facts_;
};

TEST(DType, ComparisonsAndLogicalOpsGiveBool) {
  FactsOf f(
      "  %c : Tensor = aten::gt(%x, %half)\n"
      "  %n : Tensor = aten::logical_not(%c)\n"
      "  %a : Tensor = aten::logical_and(%c, %n)\n");
  EXPECT_EQ(f.dtype("c"), ir::DType::Bool);
  EXPECT_EQ(f.dtype("n"), ir::DType::Bool);
  EXPECT_EQ(f.dtype("a"), ir::DType::Bool);
}

TEST(DType, CastsGiveTheirTarget) {
  FactsOf f(
      "  %code : int = prim::Constant[value=6]()\n"        // torch.float
      "  %code_bool : int = prim::Constant[value=11]()\n"  // torch.bool
      "  %f : Tensor = aten::to(%b, %code, %false, %false, %none)\n"
      "  %back : Tensor = aten::to(%f, %code_bool, %false, %false, %none)\n"
      "  %like : Tensor = aten::type_as(%b, %i)\n"
      "  %other : Tensor = aten::to(%b, %i, %false, %false, %none)\n");
  EXPECT_EQ(f.dtype("f"), ir::DType::Float32);
  EXPECT_EQ(f.dtype("back"), ir::DType::Bool);
  EXPECT_EQ(f.dtype("like"), ir::DType::Int64);
  EXPECT_EQ(f.dtype("other"), ir::DType::Int64);
}

TEST(DType, ArithmeticFollowsPyTorchPromotion) {
  // torch.tensor([True]) * torch.tensor([True]) is bool; bool * int64 is int64; int64 * 0.5
  // is float32 (default dtype); int64 / int64 is float32 (true division).
  FactsOf f(
      "  %bb : Tensor = aten::mul(%b, %b)\n"
      "  %bi : Tensor = aten::mul(%b, %i)\n"
      "  %if : Tensor = aten::mul(%i, %half)\n"
      "  %ii : Tensor = aten::div(%i, %i)\n"
      "  %bs : Tensor = aten::add(%b, %one, %one)\n");
  EXPECT_EQ(f.dtype("bb"), ir::DType::Bool);
  EXPECT_EQ(f.dtype("bi"), ir::DType::Int64);
  EXPECT_EQ(f.dtype("if"), ir::DType::Float32);
  EXPECT_EQ(f.dtype("ii"), ir::DType::Float32);
  EXPECT_EQ(f.dtype("bs"), ir::DType::Int64);
  EXPECT_EQ(analysis::promote(ir::DType::Float16, ir::DType::Float64), ir::DType::Float64);
  EXPECT_EQ(analysis::promote(ir::DType::Unknown, ir::DType::Float32), ir::DType::Float32);
  EXPECT_EQ(analysis::promote(ir::DType::Unknown, ir::DType::Int64), ir::DType::Unknown);
}

TEST(DType, ReductionsAndMathFollowLibTorch) {
  // PyTorch 1.13: torch.tensor([True]).sum() and torch.tensor([4]).sum() are int64;
  // torch.sqrt(torch.tensor([4])) is float32; torch.tensor([4]).mean() raises ("mean(): could
  // not infer output dtype"); any/all are bool; a float tensor keeps its dtype.
  FactsOf f(
      "  %bsum : Tensor = aten::sum(%b, %none)\n"
      "  %isqrt : Tensor = aten::sqrt(%i)\n"
      "  %bexp : Tensor = aten::exp(%b)\n"
      "  %imean : Tensor = aten::mean(%i, %none)\n"
      "  %bany : Tensor = aten::any(%i)\n"
      "  %fsqrt : Tensor = aten::sqrt(%isqrt)\n"
      "  %fmean : Tensor = aten::mean(%isqrt, %none)\n");
  EXPECT_EQ(f.dtype("bsum"), ir::DType::Int64);
  EXPECT_EQ(f.dtype("isqrt"), ir::DType::Float32);
  EXPECT_EQ(f.dtype("bexp"), ir::DType::Float32);
  EXPECT_EQ(f.dtype("imean"), ir::DType::Unknown);
  EXPECT_EQ(f.dtype("bany"), ir::DType::Bool);
  EXPECT_EQ(f.dtype("fsqrt"), ir::DType::Float32);
  EXPECT_EQ(f.dtype("fmean"), ir::DType::Float32);
}

TEST(QuantDomain, DequantKeepsTheErrorButLeavesTheDomain) {
  FactsOf f(
      "  %v : Tensor = aten::select(%q, %one, %one)\n"
      "  %d : Tensor = prim::CallMethod[name=\"forward\", callee=\"dequant.forward\"](%dequant, %v)\n"
      "  %m : Tensor = aten::eq(%v, %one)\n"
      "  %plain : Tensor = aten::relu(%x)\n");
  EXPECT_TRUE(f.facts().quantized(f.value("v")));
  EXPECT_TRUE(f.facts().in_quantized_domain(f.value("v")));
  EXPECT_TRUE(f.facts().quantized(f.value("d")));
  EXPECT_FALSE(f.facts().in_quantized_domain(f.value("d")));
  EXPECT_FALSE(f.facts().quantized(f.value("m")));  // bool: exact
  EXPECT_FALSE(f.facts().quantized(f.value("plain")));
  EXPECT_TRUE(f.facts().from_input(f.value("plain")));
  EXPECT_EQ(f.facts().views_of(f.value("v")).at("quant"), true);
  EXPECT_EQ(f.facts().views_of(f.value("q")).at("quant"), false);
}

// An in-place write of quantized data into a tensor the model made (farthest-point sampling's
// `best[m] = d[m]`, LaneGCN's `index_add_`): the tensor carries the quant point from then on, and
// the solver settles in two passes. It once ran to its cap of 100 on every such model, because
// gathering what was written counted as a change (PointNet++ traced: 322 ms of analysis).
TEST(QuantDomain, AnInPlaceWriteSettlesInTwoPasses) {
  FactsOf f(
      "  %buf : Tensor = aten::zeros_like(%x, %none, %none, %none, %none, %none)\n"
      "  %w : Tensor = aten::copy_(%buf, %q, %false)\n"
      "  %out : Tensor = aten::relu(%buf)\n");
  EXPECT_TRUE(f.facts().quantized(f.value("buf")));
  EXPECT_TRUE(f.facts().quantized(f.value("out")));
  EXPECT_EQ(f.facts().solver_passes(), 2);
}

// A fake quant written into a module's method with a constant scale (qlint --fix in a traced QAT
// model) is a quant point of its own, named by function and value as the simulator names it:
// not the module, whose calls would then all count as quant calls.
TEST(QuantDomain, AnInlineFakeQuantIsNamedByItsValue) {
  ir::ParsedModel parsed = ir::parse_model(
      "qlint-ir 1\n"
      "module \"\" \"M\"\n"
      "module \"head\" \"Head\"\n"
      "func \"forward\" in \"head\" (%self : Module<head>, %x : Tensor, %y : Tensor) {\n"
      "  %scale : float = prim::Constant[value=0.5]()\n"
      "  %zp : int = prim::Constant[value=0]()\n"
      "  %qmin : int = prim::Constant[value=-128]()\n"
      "  %qmax : int = prim::Constant[value=127]()\n"
      "  %a : Tensor = aten::fake_quantize_per_tensor_affine(%x, %scale, %zp, %qmin, %qmax)\n"
      "  %b : Tensor = aten::fake_quantize_per_tensor_affine(%y, %scale, %zp, %qmin, %qmax)\n"
      "  return (%a)\n}\n"
      "func \"forward\" in \"\" (%self : Module<>, %x : Tensor, %y : Tensor) {\n"
      "  %head : Module<head> = prim::GetAttr[name=\"head\"](%self)\n"
      "  %h : Tensor = prim::CallMethod[name=\"forward\", callee=\"head.forward\"](%head, %x, %y)\n"
      "  return (%h)\n}\n");
  auto facts = analysis::Facts::compute(parsed.model);
  const analysis::QuantPoint* a = facts.quant_point("head.forward:%a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->scale, 0.5);
  EXPECT_EQ(a->quant_min, -128);
  EXPECT_NE(facts.quant_point("head.forward:%b"), nullptr);
  EXPECT_EQ(facts.quant_point("head"), nullptr);
  EXPECT_TRUE(facts.quant_calls().empty());
}

// A tuple the compared value was unpacked from also holds another tensor that a later call writes
// in place (a fused fake quant called twice returns its scale beside its output, and its second
// call copies into that scale; public round 30, RetinaNet's head on every level): no write into
// the compared value, so no reason to refuse its float twin. A write into the compared element
// itself still is one.
const ir::Node& node_named(const ir::Function& fn, const std::string& output) {
  const ir::Node* found = nullptr;
  ir::for_each_node(fn.body, [&](const ir::Node& n) {
    if (n.output() != nullptr && n.output()->name == output) found = &n;
  });
  if (found == nullptr) throw std::runtime_error("no node making %" + output);
  return *found;
}

std::string float_shadow_refusal(const std::string& written) {
  ir::ParsedModel parsed = ir::parse_model(
      "qlint-ir 1\n"
      "module \"\" \"M\"\n"
      "module \"quant\" \"__torch__.torch.ao.quantization.stubs.QuantStub\"\n"
      "module \"writer\" \"Writer\"\n"
      "func \"forward\" in \"quant\" (%self : Module<quant>, %x : Tensor) {\n  return (%x)\n}\n"
      "func \"forward\" in \"writer\" (%self : Module<writer>, %s : Tensor) {\n"
      "  %false : bool = prim::Constant[value=false]()\n"
      "  %w : Tensor = aten::copy_(%s, %s, %false)\n"
      "  return (%w)\n}\n"
      "func \"forward\" in \"\" (%self : Module<>, %x : Tensor, %y : Tensor) {\n"
      "  %half : float = prim::Constant[value=0.5]()\n"
      "  %quant : Module<quant> = prim::GetAttr[name=\"quant\"](%self)\n"
      "  %q : Tensor = prim::CallMethod[name=\"forward\", callee=\"quant.forward\"](%quant, %x)\n"
      "  %r : Tensor = aten::relu(%q)\n"
      "  %t : Tuple[Tensor, Tensor] = prim::TupleConstruct(%r, %y)\n"
      "  %out : Tensor, %scale : Tensor = prim::TupleUnpack(%t)\n"
      "  %writer : Module<writer> = prim::GetAttr[name=\"writer\"](%self)\n"
      "  %w : Tensor = prim::CallMethod[name=\"forward\", callee=\"writer.forward\"](%writer, %" +
      written +
      ")\n"
      "  %c : Tensor = aten::gt(%out, %half)\n"
      "  return (%c)\n}\n");
  auto facts = analysis::Facts::compute(parsed.model);
  const ir::Function* forward = parsed.model.find_function("forward");
  auto plan = analysis::plan_float_shadow(facts, node_named(*forward, "c"), 0);
  return std::holds_alternative<std::string>(plan) ? std::get<std::string>(plan) : "";
}

TEST(FloatShadow, AWriteIntoAnotherElementOfATupleIsNoWriteIntoTheValue) {
  EXPECT_EQ(float_shadow_refusal("scale").find("changed in place"), std::string::npos) << float_shadow_refusal("scale");
  EXPECT_NE(float_shadow_refusal("out").find("changed in place by `aten::copy_`"), std::string::npos)
      << float_shadow_refusal("out");
}

TEST(FakeQuant, MatchesTheSeedNumbers) {
  // SPEC.md section 2, reproduced with PyTorch 1.13: int16 scale 60.5 / 32767.5.
  const float s1_scale = 0.0018463416f;
  EXPECT_NEAR(analysis::fake_quantize(1.0f, s1_scale, 0, -32768, 32767), 1.0007f, 5e-5f);
  EXPECT_NE(analysis::fake_quantize(1.0f, s1_scale, 0, -32768, 32767), 1.0f);
  EXPECT_NEAR(analysis::fake_quantize(60.5f, s1_scale, 0, -32768, 32767), 60.4991f, 5e-5f);
  EXPECT_EQ(analysis::fake_quantize(0.0f, s1_scale, 0, -32768, 32767), 0.0f);
  // S4: scale 2.1362631, round(1 / 2.136) = 0.
  EXPECT_EQ(analysis::fake_quantize(1.0f, 2.1362631f, 0, -32768, 32767), 0.0f);
  // Clamping at qmax, and round half to even (2.5 -> 2, 3.5 -> 4).
  EXPECT_EQ(analysis::fake_quantize(1000.0f, 1.0f, 0, -128, 127), 127.0f);
  EXPECT_EQ(analysis::fake_quantize(2.5f, 1.0f, 0, -128, 127), 2.0f);
  EXPECT_EQ(analysis::fake_quantize(3.5f, 1.0f, 0, -128, 127), 4.0f);
}

// A scale a model states may be tiny (found by fuzzing ONNX models): x / scale is then past
// int64's range, where converting it was undefined; the result clamps as for any large value.
// An int32 range clamps at its integer bounds, which float does not hold exactly.
TEST(FakeQuant, ValuesPastInt64ClampToTheRange) {
  EXPECT_EQ(analysis::fake_quantize(1.0f, 1e-30f, 0, -128, 127), 127.0f * 1e-30f);
  EXPECT_EQ(analysis::fake_quantize(-1.0f, 1e-30f, 0, -128, 127), -128.0f * 1e-30f);
  EXPECT_EQ(analysis::fake_quantize(1e30f, 1.0f, 0, INT32_MIN, INT32_MAX), static_cast<float>(INT32_MAX));
  EXPECT_TRUE(std::isnan(analysis::fake_quantize(1.0f, 1.0f, 0, 5, 4)));
}

TEST(StubClasses, MatchWholeDottedSuffixes) {
  EXPECT_TRUE(analysis::class_name_matches("QuantStub", "torch.ao.quantization.stubs.QuantStub"));
  EXPECT_TRUE(analysis::class_name_matches("stubs.QuantStub", "torch.ao.quantization.stubs.QuantStub"));
  EXPECT_FALSE(analysis::class_name_matches("QuantStub", "mylib.ToolchainQuantStub"));
  EXPECT_FALSE(analysis::class_name_matches("", "QuantStub"));
}

}  // namespace
}  // namespace qlint
