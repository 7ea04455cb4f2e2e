// Issue #27's decisions, without a binary: which TorchScript code runs while loading
// (ir/load_hooks.h), the bounds on configuration files before toml++ sees them, and which
// configurations the server may use (cli/config.h).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli/config.h"
#include "ir/load_hooks.h"
#include "ir/script_error.h"

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

TEST(LibraryMessages, NeverCutOffAtTheColon) {
  EXPECT_EQ(ir::library_message("Expected a value of type 'Tensor' for argument 'x' but instead found type:\n  int.\n"
                                "Position: 1\n"),
            "Expected a value of type 'Tensor' for argument 'x' but instead found type: int.");
  EXPECT_EQ(ir::library_message("\n  isTuple() INTERNAL ASSERT FAILED\nmore"), "isTuple() INTERNAL ASSERT FAILED");
  EXPECT_EQ(ir::library_message("ends with a colon:"), "ends with a colon:");
  EXPECT_LE(ir::library_message(std::string(5000, 'x')).size(), 300u);
}

}  // namespace
}  // namespace qlint
