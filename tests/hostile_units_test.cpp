// Issue #27's decisions, without a binary: which TorchScript code runs while loading
// (ir/load_hooks.h) and which registered classes a pickle builds, the bounds on configuration
// files before toml++ sees them, which configurations the server may use (cli/config.h), the
// nesting bound every walk relies on, and the form `qlint cxx` carries a model across processes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "analysis/facts.h"
#include "cli/config.h"
#include "ir/archive_check.h"
#include "ir/large_stack.h"
#include "ir/load_hooks.h"
#include "ir/script_error.h"
#include "ir/text.h"
#include "ir/verifier.h"
#include "rules/registry.h"

namespace qlint {
namespace {

std::string module_with(const std::string& definition) {
  return "class M(Module):\n  __parameters__ = []\n  training : bool\n  def forward(self: __torch__.M,\n"
         "    x: Tensor) -> Tensor:\n    return x\n" +
         definition + "\n    self.training = (state)[1]\n    return None\n";
}

TEST(LoadHooks, FindsSetstateInEverySpelling) {
  for (const char* spelling : {"  def __setstate__(self: __torch__.M, state: Tuple[bool]) -> NoneType:",
                               "  def\t__setstate__(self: __torch__.M, state: Tuple[bool]) -> NoneType:",
                               "  def    __setstate__   (self, state: Tuple[bool]) -> NoneType:",
                               "  def\f__setstate__(self, state: Tuple[bool]) -> NoneType:",
                               "  def \\\n__setstate__(self, state: Tuple[bool]) -> NoneType:",
                               "  def \\\r\n    __setstate__(self, state: Tuple[bool]) -> NoneType:",
                               "  # a comment\n  @torch.jit.export\n  def __setstate__(  # it runs\n    self, state: "
                               "Tuple[bool]) -> NoneType:"}) {
    auto hooks = ir::load_hooks(module_with(spelling));
    ASSERT_FALSE(hooks.empty()) << spelling;
    EXPECT_TRUE(hooks.front().definition) << spelling;
    EXPECT_EQ(hooks.front().class_name, "M") << spelling;
  }
}

TEST(LoadHooks, NamesTheClassOfEachDefinition) {
  std::string code =
      "class A(Module):\n  def forward(self):\n    return None\n"
      "class B(Module):\n  def __setstate__(self, s: int) -> NoneType:\n    return None\n";
  auto hooks = ir::load_hooks(code);
  ASSERT_EQ(hooks.size(), 1u);
  EXPECT_EQ(hooks[0].describe(), "line 5 defines __setstate__ (class B)");
}

TEST(LoadHooks, AnyOtherMentionCountsAsUnsure) {
  // Not definitions, but qlint cannot be sure the text is harmless: each counts.
  for (const char* code : {"class M(Module):\n  # def __setstate__(self)\n  x : int\n",
                           "class M(Module):\n  def forward(self):\n    return \"__setstate__\"\n", "__setstate__"}) {
    auto hooks = ir::load_hooks(code);
    ASSERT_EQ(hooks.size(), 1u) << code;
    EXPECT_FALSE(hooks[0].definition) << code;
    EXPECT_NE(hooks[0].describe().find("names __setstate__"), std::string::npos);
  }
}

TEST(LoadHooks, CodeWithoutTheNameRunsNothing) {
  EXPECT_TRUE(ir::load_hooks(module_with("  def __getstate__(self: __torch__.M) -> Tuple[bool]:")).empty());
  EXPECT_TRUE(ir::load_hooks("").empty());
  EXPECT_TRUE(ir::load_hooks("\"\"\"an unterminated string").empty());
}

TEST(LoadHooks, BoundedOnAMillionMentions) {
  std::string code;
  for (int i = 0; i < 1000000; ++i) code += "__setstate__\n";
  EXPECT_LE(ir::load_hooks(code).size(), 64u);
}

TEST(LoadHooks, CodeRecordsAreMatchedWithoutCase) {
  // LibTorch's zip reader finds code/__torch__.py under CODE/__TORCH__.PY too.
  for (const char* name : {"code/__torch__.py", "CODE/__TORCH__.PY", "Code/x/y.py", "code/__torch__/m.py", "x.PY"})
    EXPECT_TRUE(ir::is_code_record(name)) << name;
  for (const char* name : {"code/__torch__.py.debug_pkl", "CODE/X.PY.DEBUG_PKL", "data.pkl", "data/0", "constants.pkl"})
    EXPECT_FALSE(ir::is_code_record(name)) << name;
}

void expect_config_error(const std::string& text, const std::string& words) {
  try {
    cli::parse_config(text, "/p/.qlint.toml");
    ADD_FAILURE() << "accepted: " << text.substr(0, 80);
  } catch (const cli::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(ConfigBounds, LongDottedKeysAndDeepNestingAreRefusedBeforeToml) {
  std::string key = "a";
  for (int i = 0; i < 50000; ++i) key += ".a";
  expect_config_error(key + " = 1\n", "dotted key of more than");
  expect_config_error("[" + key + "]\n", "dotted key of more than");
  expect_config_error("x = {" + key + " = 1}\n", "dotted key of more than");
  expect_config_error("x = " + std::string(50000, '[') + std::string(50000, ']') + "\n", "nested deeper than");
  expect_config_error("x = " + std::string(70, '{') + "\n", "nested deeper than");
}

TEST(ConfigBounds, OrdinaryDotsStillParse) {
  // Floats in a long array, dots in strings and comments: not key parts.
  std::string floats = "min-sqnr = 40.5\nselect = [\"eq-nonzero-const\"]  # a.b.c.d\n";
  floats +=
      "[per-file-ignores]\n\"a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q."
      "r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p\" = [\"eq-nonzero-const\"]\n";
  cli::Config c = cli::parse_config(floats, "/p/.qlint.toml");
  EXPECT_EQ(c.min_sqnr, 40.5);
  EXPECT_EQ(c.per_file_ignores.size(), 1u);
}

TEST(ConfigTrust, IsWithinComparesWholeComponents) {
  EXPECT_TRUE(cli::is_within("/ws/a/b.pt", "/ws"));
  EXPECT_TRUE(cli::is_within("/ws", "/ws/"));
  EXPECT_TRUE(cli::is_within("/ws/x/../y", "/ws"));
  EXPECT_FALSE(cli::is_within("/ws2/a", "/ws"));
  EXPECT_FALSE(cli::is_within("/usr", "/ws"));
  EXPECT_FALSE(cli::is_within("/ws/../etc", "/ws"));
}

TEST(ConfigTrust, FindConfigStopsAtTheRoots) {
  namespace fs = std::filesystem;
  fs::path top = fs::temp_directory_path() / ("qlint-config-roots-" + std::to_string(::getpid()));
  fs::create_directories(top / "ws" / "sub");
  std::ofstream(top / ".qlint.toml") << "bits = 8\n";
  EXPECT_TRUE(cli::find_config((top / "ws" / "sub").string()).has_value());  // the CLI looks upward
  EXPECT_FALSE(cli::find_config((top / "ws" / "sub").string(), {(top / "ws").string()}).has_value());
  std::ofstream(top / "ws" / ".qlint.toml") << "bits = 16\n";
  auto inside = cli::find_config((top / "ws" / "sub").string(), {(top / "ws").string()});
  ASSERT_TRUE(inside.has_value());
  EXPECT_EQ(inside->bits, 16);
  fs::remove_all(top);
}

// What `qlint server` watches for configuration changes: every file find_config would read, there
// or not, nearest first, never above the roots.
TEST(ConfigTrust, ConfigCandidatesAreWhatFindConfigReads) {
  EXPECT_EQ(cli::config_candidates("/ws/sub/model.pt", {"/ws"}),  // a path that is no directory: its own
            (std::vector<std::string>{"/ws/sub/.qlint.toml", "/ws/sub/pyproject.toml", "/ws/.qlint.toml",
                                      "/ws/pyproject.toml"}));
  EXPECT_EQ(cli::config_candidates("/elsewhere", {"/ws"}), std::vector<std::string>{});
  EXPECT_TRUE(cli::is_config_file("/ws/sub/pyproject.toml"));
  EXPECT_TRUE(cli::is_config_file(".qlint.toml"));
  EXPECT_FALSE(cli::is_config_file("/ws/qlint.toml"));
  EXPECT_FALSE(cli::is_config_file("/ws/pyproject.toml.bak"));
}

TEST(LibraryMessages, NeverCutOffAtTheColon) {
  EXPECT_EQ(ir::library_message("Expected a value of type 'Tensor' for argument 'x' but instead found type:\n  int.\n"
                                "Position: 1\n"),
            "Expected a value of type 'Tensor' for argument 'x' but instead found type: int.");
  EXPECT_EQ(ir::library_message("\n  isTuple() INTERNAL ASSERT FAILED\nmore"), "isTuple() INTERNAL ASSERT FAILED");
  EXPECT_EQ(ir::library_message("ends with a colon:"), "ends with a colon:");
  EXPECT_LE(ir::library_message(std::string(5000, 'x')).size(), 300u);
}

// A pickle as TorchScript writes one: an M whose attribute is a registered C++ class's object
// (torch.jit.script of a module holding torch.ops.quantized.linear_prepack's result).
TEST(PickleGlobals, NamesEveryClassTheUnpicklerLooksUp) {
  using namespace std::string_literals;  // the pickle holds NUL bytes
  const std::string pickle = "\x80\x02"s + "c__torch__\nM\n)\x81}(X\x01\x00\x00\x00p"s +
                             "c__torch__.torch.classes.quantized\nLinearPackedParamsBase\n)\x81"s +
                             "c__torch__\nM\n0u0."s;
  std::vector<std::string> globals;
  EXPECT_EQ(ir::pickle_problem(pickle, &globals), "");
  EXPECT_EQ(globals,
            (std::vector<std::string>{"__torch__.M", "__torch__.torch.classes.quantized.LinearPackedParamsBase"}));
}

TEST(PickleGlobals, BoundedOnAMillionDistinctNames) {
  std::string pickle = "\x80\x02";
  for (int i = 0; i < 1000000; ++i) pickle += "cm\nC" + std::to_string(i) + "\n0";
  pickle += "N.";
  std::vector<std::string> globals;
  EXPECT_EQ(ir::pickle_problem(pickle, &globals), "");
  EXPECT_EQ(globals.size(), ir::kMaxGlobals);
}

// A chain of `depth` nested ifs in one function.
ir::Model nested_ifs(int depth) {
  ir::Model model;
  ir::Function& f = model.add_function("", "forward");
  ir::Block* block = &f.body;
  for (int i = 0; i < depth; ++i) {
    ir::Node* n = f.append_node(*block, "prim::If");
    n->blocks.push_back(std::make_unique<ir::Block>());
    n->blocks.back()->owner = n;
    block = n->blocks.back().get();
  }
  return model;
}

TEST(Nesting, TheVerifierRefusesBlocksDeeperThanTheBoundInOneLine) {
  EXPECT_TRUE(ir::verify(nested_ifs(ir::kMaxNesting)).empty());
  std::vector<std::string> problems = ir::verify(nested_ifs(100000));  // no stack overflow
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("nest deeper than 256"), std::string::npos) << problems[0];
  EXPECT_NE(ir::beyond_limits(nested_ifs(100000)).find("blocks nest deeper than 256"), std::string::npos);
  EXPECT_EQ(ir::beyond_limits(nested_ifs(ir::kMaxNesting)), "");
}

TEST(Nesting, AValueUsedAHundredThousandTimesVerifiesInLinearTime) {
  ir::Model model;
  ir::Function& f = model.add_function("", "forward");
  ir::Value* x = f.add_param(f.body, "x", ir::Type::tensor());
  for (int i = 0; i < 100000; ++i) {
    ir::Node* n = f.append_node(f.body, "aten::neg");
    f.add_input(*n, x);
    f.add_output(*n, "y" + std::to_string(i), ir::Type::tensor());
  }
  EXPECT_TRUE(ir::verify(model).empty());  // quadratic, this took minutes
}

TEST(LargeStack, RunsDeepRecursionAndCarriesResultsAndExceptions) {
  std::function<int(int)> depth = [&](int n) { return n == 0 ? 0 : 1 + depth(n - 1); };
  // About 100 bytes a frame: 500,000 frames are past the 8 MiB main-thread stack.
  EXPECT_EQ(ir::on_large_stack([&] { return depth(500000); }), 500000);
  EXPECT_THROW(ir::on_large_stack([]() -> int { throw std::runtime_error("from the thread"); }), std::runtime_error);
}

// `depth` functions calling each other (C++ code does that; TorchScript inlines), the last
// called on a stub's output and compared with 1 by forward. Callers first, the solver's own
// recursion follows the whole chain; callees first, each pass meets a function before its caller.
std::string call_chain(int depth, bool callers_first) {
  auto call = [](int callee, const std::string& argument) {
    std::string name = "f" + std::to_string(callee);
    return "  %fn : Other(\"Function\") = prim::Constant[value=\"" + name +
           "\"]()\n  %y : Tensor = prim::CallFunction[callee=\"" + name + "\"](%fn, " + argument + ")\n";
  };
  std::vector<std::string> functions = {"func \"f0\" in \"\" (%x : Tensor) {\n  return (%x)\n}\n"};
  for (int i = 1; i < depth; ++i)
    functions.push_back("func \"f" + std::to_string(i) + "\" in \"\" (%x : Tensor) {\n" + call(i - 1, "%x") +
                        "  return (%y)\n}\n");
  functions.push_back(
      "func \"forward\" in \"\" (%self : Module<>, %x : Tensor) {\n  %one : int = prim::Constant[value=1]()\n"
      "  %quant : Module<quant> = prim::GetAttr[name=\"quant\"](%self)\n"
      "  %q : Tensor = prim::CallMethod[name=\"forward\", callee=\"quant.forward\"](%quant, %x)\n" +
      call(depth - 1, "%q") + "  %e : Tensor = aten::eq(%y, %one)\n  return (%e)\n}\n");
  if (callers_first) std::reverse(functions.begin(), functions.end());
  std::string text =
      "qlint-ir 1\nmodel \"chain\"\nmodule \"\" \"__torch__.Model\"\n"
      "module \"quant\" \"__torch__.torch.ao.quantization.stubs.QuantStub\"\n"
      "func \"forward\" in \"quant\" (%self : Module<quant>, %x : Tensor) {\n  return (%x)\n}\n";
  for (const std::string& f : functions) text += f;
  return text;
}

bool finds_the_comparison(int depth, bool callers_first) {
  ir::ParsedModel parsed = ir::parse_model(call_chain(depth, callers_first));
  for (const std::string& problem : ir::verify(parsed.model)) ADD_FAILURE() << problem;
  auto diagnostics = rules::run_all(analysis::Facts::compute(parsed.model));
  return std::any_of(diagnostics.begin(), diagnostics.end(),
                     [](const auto& d) { return d.rule == "eq-nonzero-const"; });
}

TEST(CallDepth, AnalysesFollowAChainOfCallsToItsEnd) {
  for (bool callers_first : {true, false}) {
    EXPECT_TRUE(finds_the_comparison(3, callers_first)) << callers_first;
    EXPECT_TRUE(finds_the_comparison(500, callers_first)) << callers_first;
    EXPECT_TRUE(finds_the_comparison(ir::kMaxCallDepth - 1, callers_first)) << callers_first;
  }
}

TEST(CallDepth, TheVerifierRefusesChainsLongerThanTheBoundInOneLine) {
  ir::ParsedModel parsed = ir::parse_model(call_chain(100000, true));
  std::vector<std::string> problems = ir::verify(parsed.model);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("calls nest deeper than"), std::string::npos) << problems[0];
  EXPECT_EQ(ir::beyond_limits(parsed.model), problems[0]);  // the front ends' words: not a bug of qlint's
  EXPECT_EQ(ir::beyond_limits(ir::parse_model(call_chain(ir::kMaxCallDepth - 1, true)).model), "");
}

// `qlint cxx` hands each file's model from the process that parsed it to the one that reports
// it in text IR: what C++ models carry must survive.
TEST(TextIr, CarriesWhatTheCxxFrontEndSets) {
  ir::Model model;
  model.file = "deploy.cpp";
  model.language = ir::Language::Cxx;
  model.modules.push_back(
      {"cxx_quantize_per_tensor_1", "torch.ao.quantization.stubs.QuantStub", "at::quantize_per_tensor", 12});
  ir::Function& f = model.add_function("", "run");
  f.entry = true;
  f.body.returns.push_back(f.add_param(f.body, "x", ir::Type::tensor()));
  ir::Model back = ir::parse_model(ir::print_model(model)).model;
  EXPECT_EQ(back.language, ir::Language::Cxx);
  ASSERT_EQ(back.modules.size(), 1u);
  EXPECT_EQ(back.modules[0].display, "at::quantize_per_tensor");
  EXPECT_EQ(back.modules[0].line, 12);
  ASSERT_NE(back.find_function("run"), nullptr);
  EXPECT_TRUE(back.find_function("run")->entry);
  EXPECT_EQ(ir::print_model(back), ir::print_model(model));
}

}  // namespace
}  // namespace qlint
