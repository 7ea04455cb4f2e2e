// The IR's text form reads back what it prints, reports malformed text by line, and the
// verifier catches broken invariants.
#include <gtest/gtest.h>

#include "fixture_files.h"
#include "ir/display.h"
#include "ir/ops.h"
#include "ir/schema.h"
#include "ir/script_error.h"
#include "ir/source_text.h"
#include "ir/text.h"
#include "ir/verifier.h"

namespace qlint {
namespace {

using testing::fixture_files;
using testing::read_file;

std::vector<std::string> all_fixtures() {
  auto files = fixture_files("ir");
  for (const char* dir : {"rules", "fixes"}) {
    auto more = fixture_files(dir);
    files.insert(files.end(), more.begin(), more.end());
  }
  return files;
}

class RoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(RoundTrip, PrintParsePrintIsStable) {
  ir::ParsedModel first = ir::parse_model(read_file(GetParam()));
  EXPECT_TRUE(ir::verify(first.model).empty());
  std::string printed = ir::print_model(first.model);
  ir::ParsedModel second = ir::parse_model(printed);
  EXPECT_EQ(printed, ir::print_model(second.model));
  EXPECT_EQ(first.model.functions.size(), second.model.functions.size());
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RoundTrip, ::testing::ValuesIn(all_fixtures()),
                         [](const auto& info) { return testing::fixture_test_name(info.param); });

TEST(IrText, KeepsTypesAttributesAndLocations) {
  ir::ParsedModel parsed = ir::parse_model(read_file(std::string(QLINT_FIXTURES_DIR) + "/ir/types_and_attrs.qir"));
  const ir::Model& m = parsed.model;
  ASSERT_EQ(m.functions.size(), 1u);
  const ir::Function& f = *m.functions[0];
  EXPECT_EQ(f.body.params[1]->type.dtype, ir::DType::Float32);
  EXPECT_EQ(*f.body.params[1]->type.sizes, (std::vector<int64_t>{1, 2, 4, 4}));
  const ir::Node* op = nullptr;
  ir::for_each_node(f.body, [&](const ir::Node& n) {
    if (n.kind == "my::op") op = &n;
  });
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->loc.file, "/src/model.py");
  EXPECT_EQ(op->loc.line, 12);
  EXPECT_EQ(op->loc.column, 13);
  EXPECT_EQ(op->loc.end_column, 37);
  EXPECT_EQ(op->attr("scale")->f, 0.25);
  EXPECT_EQ(op->outputs[0]->type.dtype, ir::DType::Bool);
  EXPECT_EQ(op->outputs[1]->type.name, "Dict(str, Tensor)");
  EXPECT_EQ(*m.source_line("/src/model.py", 12), "        y = torch.cat([a, b], dim=1)  # \"quoted\" \\ text");
  const ir::Node* string_constant = f.body.nodes[5].get();
  EXPECT_EQ(string_constant->attr("value")->s, "a \"str\"\n");
}

TEST(IrText, FloatsReadBackBitForBit) {
  for (double v : {0.1, 1.0 / 3.0, 1e-300, 2.1362631, 0.0018463416, -5e-324}) {
    ir::Attr a = ir::Attr::of_float(v);
    std::string text = "qlint-ir 1\nfunc \"f\" in \"\" () {\n  %c : float = prim::Constant[value=" + ir::print_attr(a) +
                       "]()\n  return (%c)\n}\n";
    ir::ParsedModel parsed = ir::parse_model(text);
    EXPECT_EQ(parsed.model.functions[0]->body.nodes[0]->attr("value")->f, v) << ir::print_attr(a);
  }
}

// A scripted slice `x[i:]` ends at sys.maxsize (9223372036854775807), which a double cannot
// hold: integers read back exactly, at both ends of int64, alone and in lists (LaneGCN's scripted
// export did not read back). One past the end is an error.
TEST(IrText, IntegersReadBackExactly) {
  const std::vector<int64_t> values = {INT64_MAX, INT64_MIN, INT64_MAX - 1, 9007199254740993, -1, 0};
  for (int64_t v : values) {
    std::string text = "qlint-ir 1\nfunc \"f\" in \"\" () {\n  %c : int = prim::Constant[value=" +
                       ir::print_attr(ir::Attr::of_int(v)) + "]()\n  %l : List[int] = prim::Constant[value=ints[" +
                       std::to_string(v) + ", 1]]()\n  return (%c, %l)\n}\n";
    ir::ParsedModel parsed = ir::parse_model(text);
    EXPECT_EQ(parsed.model.functions[0]->body.nodes[0]->attr("value")->i, v);
    EXPECT_EQ(parsed.model.functions[0]->body.nodes[1]->attr("value")->ints, (std::vector<int64_t>{v, 1}));
  }
  EXPECT_THROW(ir::parse_model("qlint-ir 1\nfunc \"f\" in \"\" () {\n  %c : int = "
                               "prim::Constant[value=9223372036854775808]()\n  return (%c)\n}\n"),
               ir::ParseError);
}

TEST(IrText, ErrorsNameTheLine) {
  const std::string text =
      "qlint-ir 1\n"
      "func \"f\" in \"\" (%x : Tensor) {\n"
      "  %y : Tensor = aten::relu(%nope)\n"
      "  return (%y)\n"
      "}\n";
  try {
    ir::parse_model(text);
    FAIL() << "expected a parse error";
  } catch (const ir::ParseError& e) {
    EXPECT_EQ(e.line, 3);
    EXPECT_NE(std::string(e.what()).find("undefined value %nope"), std::string::npos) << e.what();
  }
}

TEST(IrText, RejectsMalformedText) {
  const std::vector<std::string> bad = {
      "",
      "qlint-ir 2\n",
      "qlint-ir 1\nfunc \"f\" in \"\" (%x : Tensor) {\n  return (%x)\n",
      "qlint-ir 1\nfunc \"f\" in \"\" (%x : Tensr) {\n  return (%x)\n}\n",
      "qlint-ir 1\nfunc \"f\" in \"\" (%x : Tensor) {\n  %x : Tensor = aten::relu(%x)\n  return (%x)\n}\n",
      "qlint-ir 1\nmodel \"unterminated\n",
      "qlint-ir 1\nfunc \"f\" in \"\" (%x : Tensor) {\n  %y : Tensor = aten::relu(%x) loc(\"f\":1)\n  return (%y)\n}\n",
  };
  for (const auto& text : bad) EXPECT_THROW(ir::parse_model(text), ir::ParseError) << text;
}

TEST(Verifier, FindsUseBeforeDefinitionAndUnknownCallees) {
  ir::Model m;
  m.modules.push_back({"", "M", "", 0});
  ir::Function& f = m.add_function("", "forward");
  ir::Value* x = f.add_param(f.body, "x", ir::Type::tensor());
  ir::Node* relu = f.append_node(f.body, "aten::relu");
  ir::Node* late = f.append_node(f.body, "aten::neg");
  ir::Value* y = f.add_output(*late, "y", ir::Type::tensor());
  f.add_input(*relu, y);  // used one node before it is defined
  f.add_input(*late, x);
  ir::Node* call = f.append_node(f.body, "prim::CallMethod");
  call->set_attr("callee", ir::Attr::of_str("missing.forward"));
  f.body.returns.push_back(y);
  auto problems = ir::verify(m);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0], "in forward: node aten::relu: uses %y before its definition");
  EXPECT_EQ(problems[1], "in forward: node prim::CallMethod: calls a function that is not in the model");
}

TEST(Verifier, ScopesBlockValues) {
  const std::string text =
      "qlint-ir 1\n"
      "func \"f\" in \"\" (%c : bool, %x : Tensor) {\n"
      "  %r : Tensor = prim::If(%c) {\n"
      "    block() {\n"
      "      %inner : Tensor = aten::relu(%x)\n"
      "      -> (%inner)\n"
      "    }\n"
      "  }\n"
      "  %bad : Tensor = aten::neg(%inner)\n"
      "  return (%bad)\n"
      "}\n";
  ir::ParsedModel parsed = ir::parse_model(text);
  auto problems = ir::verify(parsed.model);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "in f: node aten::neg: uses %inner before its definition");
}

// LibTorch 1.13's message for a Linear(8, 4) given a 1x7 input (tests/e2e/failing_forward_model.py),
// as the interpreter throws it: the user's frame is the innermost one outside torch's own code.
TEST(ScriptError, NamesTheExceptionAndTheUsersLine) {
  const std::string what =
      "The following operation failed in the TorchScript interpreter.\n"
      "Traceback of TorchScript, serialized code (most recent call last):\n"
      "  File \"code/__torch__.py\", line 13, in forward\n"
      "    return (fc).forward(x0, )\n"
      "            ~~~~~~~~~~~ <--- HERE\n"
      "\n"
      "Traceback of TorchScript, original code (most recent call last):\n"
      "  File \"/work/model.py\", line 17, in forward\n"
      "        return self.fc(x)\n"
      "  File \"/usr/lib/python3/dist-packages/torch/nn/modules/linear.py\", line 114, in forward\n"
      "        return F.linear(input, self.weight, self.bias)\n"
      "RuntimeError: mat1 and mat2 shapes cannot be multiplied (1x7 and 8x4)\n";
  ir::ScriptError error = ir::parse_script_error(what);
  EXPECT_EQ(error.message, "RuntimeError: mat1 and mat2 shapes cannot be multiplied (1x7 and 8x4)");
  EXPECT_EQ(error.file, "/work/model.py");
  EXPECT_EQ(error.line, 17);
  EXPECT_EQ(ir::describe_script_error(what),
            "RuntimeError: mat1 and mat2 shapes cannot be multiplied (1x7 and 8x4) (at /work/model.py:17)");
}

TEST(ScriptError, WithoutATracebackKeepsTheMessage) {
  EXPECT_EQ(ir::describe_script_error("Expected 4-dimensional input\n"), "Expected 4-dimensional input");
  EXPECT_EQ(ir::describe_script_error(""), "the model failed without a message");
  // A line number no int holds is dropped, not misread.
  ir::ScriptError huge = ir::parse_script_error(
      "Traceback of TorchScript, original code (most recent call last):\n"
      "  File \"m.py\", line 99999999999999999999, in forward\nRuntimeError: x\n");
  EXPECT_EQ(huge.line, 0);
}

// Ranges as TorchScript 1.13 records them for examples/zoo (type_as_mask.py:40,
// sequential_heads.py:27): one character short at the end.
TEST(CompleteRange, FinishesCutIdentifiersAndOpenBrackets) {
  const std::string clamp = "        pooled = pooled / keep.sum(dim=1, keepdim=True).clamp(min=1.0)";
  auto text = [](const std::string& line, const ir::SourceLoc& loc) {
    return line.substr(static_cast<size_t>(loc.column - 1), static_cast<size_t>(loc.end_column - loc.column));
  };
  EXPECT_EQ(text(clamp, ir::complete_range(clamp, {"m.py", 40, 27, 40, 61})), "keep.sum(dim=1, keepdim=True).clamp");
  EXPECT_EQ(text(clamp, ir::complete_range(clamp, {"m.py", 40, 18, 40, 70})),
            "pooled / keep.sum(dim=1, keepdim=True).clamp(min=1.0)");
  const std::string slice = "        valid = x[:, -1:] == 1";
  EXPECT_EQ(text(slice, ir::complete_range(slice, {"m.py", 27, 17, 27, 25})), "x[:, -1:]");
  const std::string cast = "        valid = (1.0 - is_pad).to(torch.bool)";
  EXPECT_EQ(text(cast, ir::complete_range(cast, {"m.py", 35, 18, 35, 34})), "(1.0 - is_pad).to");
  // Complete ranges stay as they are.
  EXPECT_EQ(text(slice, ir::complete_range(slice, {"m.py", 27, 17, 27, 31})), "x[:, -1:] == 1");
  EXPECT_EQ(text(slice, ir::complete_range(slice, {"m.py", 27, 17, 27, 18})), "x");
}

}  // namespace
}  // namespace qlint

namespace qlint {
namespace {

// Schemas as LibTorch 1.13 prints them (torch._C._jit_get_schemas_for_operator).
TEST(Schema, ReadsArgumentsDefaultsAndAliasAnnotations) {
  auto to = ir::parse_schema(
      "aten::to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, bool copy=False, "
      "MemoryFormat? memory_format=None) -> Tensor(a)");
  ASSERT_TRUE(to);
  EXPECT_EQ(to->name, "aten::to");
  EXPECT_EQ(to->overload, "device");
  ASSERT_EQ(to->arguments.size(), 6u);
  EXPECT_EQ(to->argument_index("dtype"), 2u);
  EXPECT_EQ(to->arguments[0].type, "Tensor");
  EXPECT_EQ(to->arguments[0].alias_set, "a");
  EXPECT_FALSE(to->arguments[0].writes);
  EXPECT_EQ(to->arguments[5].type, "MemoryFormat?");
  EXPECT_EQ(to->arguments[5].default_value, "None");
  ASSERT_EQ(to->returns.size(), 1u);
  EXPECT_EQ(to->returns[0].alias_set, "a");

  auto add = ir::parse_schema("aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)");
  ASSERT_TRUE(add);
  EXPECT_TRUE(add->arguments[0].writes);
  EXPECT_FALSE(add->arguments[1].keyword_only);
  EXPECT_TRUE(add->arguments[2].keyword_only);

  auto split = ir::parse_schema("aten::split.Tensor(Tensor(a -> *) self, int split_size, int dim=0) -> Tensor(a)[]");
  ASSERT_TRUE(split);
  EXPECT_TRUE(split->arguments[0].into_wildcard);
  EXPECT_EQ(split->returns[0].type, "Tensor[]");
  EXPECT_EQ(split->returns[0].alias_set, "a");

  auto max =
      ir::parse_schema("aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  ASSERT_TRUE(max);
  ASSERT_EQ(max->returns.size(), 2u);
  EXPECT_EQ(max->returns[1].name, "indices");
  EXPECT_EQ(max->overload, "dim");

  auto set_item = ir::parse_schema("aten::_set_item.str(Dict(str, t)(a!) l, str(b -> *) idx, t(c -> *) v) -> ()");
  ASSERT_TRUE(set_item);
  EXPECT_EQ(set_item->arguments[0].type, "Dict(str, t)");
  EXPECT_TRUE(set_item->arguments[0].writes);
  EXPECT_TRUE(set_item->returns.empty());

  auto conv = ir::parse_schema(
      "aten::conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, str padding=\"valid\", "
      "int[2] dilation=1, int groups=1) -> Tensor");
  ASSERT_TRUE(conv);
  EXPECT_EQ(conv->arguments[4].default_value, "\"valid\"");
  EXPECT_EQ(conv->arguments[3].type, "int[2]");
}

TEST(Schema, RejectsWhatIsNoSchema) {
  for (const char* text :
       {"", "aten::to", "to(Tensor self) -> Tensor", "aten::to(Tensor self", "aten::to(Tensor) -> Tensor"})
    EXPECT_FALSE(ir::parse_schema(text)) << text;
}

// What the analyses ask of a node: an operand by name in any overload, views and writes.
TEST(Schema, AnswersForTheNodeItWasRecordedOn) {
  ir::ParsedModel parsed = ir::parse_model(R"qir(qlint-ir 1
model "m"
module "" "M"
func "forward" in "" (%self : Module<>, %x : Tensor, %l : List[Tensor]) {
  %device : Device = prim::Constant[value="cpu"]()
  %bool : int = prim::Constant[value=11]()
  %f : bool = prim::Constant[value=false]()
  %none : NoneType = prim::Constant()
  %m : Tensor = aten::to[schema="aten::to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)"](%x, %device, %bool, %f, %f, %none)
  %one : int = prim::Constant[value=1]()
  %u : Tensor = aten::unfold[schema="aten::unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)"](%x, %one, %one, %one)
  %w : Tensor = aten::add_[schema="aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)"](%x, %u, %one)
  %l2 : List[Tensor] = aten::append[schema="aten::append.t(t[](a!) self, t(c -> *) el) -> t[](a!)"](%l, %m)
  %c : Tensor = aten::clone[schema="aten::clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor"](%x, %none)
  %e : Tensor = aten::exp[schema="aten::exp(Tensor self) -> Tensor"](%x)
  return (%e)
}
)qir");
  const auto& nodes = parsed.model.functions[0]->body.nodes;
  auto node = [&](const std::string& kind) -> const ir::Node& {
    for (const auto& n : nodes)
      if (n->kind == kind) return *n;
    throw std::runtime_error(kind);
  };
  const ir::Node& to = node("aten::to");
  EXPECT_EQ(ir::named_operand(to, "dtype")->name, "bool");
  EXPECT_EQ(ir::named_operand(to, "other"), nullptr);
  EXPECT_TRUE(ir::is_cast(to));
  EXPECT_FALSE(ir::is_view_op(to)) << "a cast changes the values it aliases";
  EXPECT_TRUE(ir::may_alias_first_operand(to));
  bool part = false;
  EXPECT_TRUE(ir::is_view_op(node("aten::unfold"), &part)) << "no list names unfold: the schema does";
  EXPECT_TRUE(part);
  EXPECT_FALSE(ir::is_view_op(node("aten::add_"))) << "an in-place op returns what it wrote";
  EXPECT_TRUE(ir::writes_in_place(node("aten::add_"), 0));
  EXPECT_FALSE(ir::writes_in_place(node("aten::add_"), 1));
  EXPECT_TRUE(ir::writes_in_place(node("aten::append"), 1)) << "stored into the list it writes";
  EXPECT_TRUE(ir::is_view_op(node("aten::clone"), &part));
  EXPECT_FALSE(part);
  EXPECT_FALSE(ir::is_view_op(node("aten::exp")));
  EXPECT_FALSE(ir::may_alias_first_operand(node("aten::exp")));
  EXPECT_FALSE(ir::writes_anything_in_place(node("aten::exp")));
}

// Messages name a function as the user wrote it, not as a copy an earlier --fix round made.
TEST(Display, SourceFunctionNameDropsTheCopiesSuffixes) {
  EXPECT_EQ(ir::source_function_name("net.sa1.forward__qlint_float_1"), "net.sa1.forward");
  EXPECT_EQ(ir::source_function_name("__torch__.ball__qlint_float_2__qlint_float_10"), "__torch__.ball");
  EXPECT_EQ(ir::source_function_name("head.forward"), "head.forward");
  EXPECT_EQ(ir::source_function_name("keep__qlint_float_"), "keep__qlint_float_");  // no number: not a copy
}

}  // namespace
}  // namespace qlint
