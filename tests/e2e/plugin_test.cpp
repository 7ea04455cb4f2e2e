// LibTorch is a plugin (libqlint_torch.so) that qlint loads only when a command needs it:
// the binary does not link it, commands without TorchScript work without it, and a missing
// plugin is one line, not a crash.
#include <gtest/gtest.h>

#include <string>

#include "run.h"

namespace qlint {
namespace {

using testing::build_path;
using testing::example_model;
using testing::run_program;
using testing::run_qlint_with_env;

const std::string kNoPlugin = "QLINT_TORCH_PLUGIN=/nonexistent/libqlint_torch.so";

TEST(Plugin, TheBinaryDoesNotLinkLibTorch) {
  auto r = run_program({"readelf", "--dynamic", QLINT_BINARY});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("NEEDED"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("libtorch"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("libc10"), std::string::npos) << r.out;
}

TEST(Plugin, RulesExplainAndFxChecksWorkWithoutIt) {
  EXPECT_EQ(run_qlint_with_env({kNoPlugin}, {"rules"}).exit_code, 0);
  EXPECT_EQ(run_qlint_with_env({kNoPlugin}, {"explain", "eq-nonzero-const"}).exit_code, 0);
  auto fx = run_qlint_with_env({kNoPlugin}, {"check", build_path("examples/fx/seed/s1_eq_one.fx.json")});
  EXPECT_EQ(fx.exit_code, 1) << fx.err;
  EXPECT_NE(fx.out.find("[eq-nonzero-const]"), std::string::npos) << fx.out;
}

TEST(Plugin, MissingPluginIsOneLineForTorchScript) {
  auto r = run_qlint_with_env({kNoPlugin}, {"check", example_model("seed/s1_eq_one")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "qlint: error: build/examples/seed/s1_eq_one.pt: cannot find qlint's LibTorch support (libqlint_torch.so; "
            "looked at /nonexistent/libqlint_torch.so); reinstall qlint, or set QLINT_TORCH_PLUGIN\n");
  auto sim = run_qlint_with_env({kNoPlugin}, {"sim", example_model("seed/s1_eq_one"), "--random-input", "1x2x4x4"});
  EXPECT_EQ(sim.exit_code, 2);
  EXPECT_NE(sim.err.find("cannot find qlint's LibTorch support"), std::string::npos) << sim.err;
}

TEST(Plugin, NotAPluginIsOneLine) {
  // A shared object without qlint's entry point: the C library itself.
  auto r = run_qlint_with_env({"QLINT_TORCH_PLUGIN=/lib/x86_64-linux-gnu/libc.so.6"},
                              {"check", example_model("seed/s1_eq_one")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is not qlint's LibTorch plugin"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace qlint
