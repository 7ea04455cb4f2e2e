// LibTorch is a plugin (libqlint_torch.so) that qlint loads only when a command needs it:
// the binary does not link it, commands without TorchScript work without it, and a missing
// plugin is one line, not a crash. Custom operator libraries (--load-library) go into it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "run.h"
#include "temp_dir.h"

namespace qlint {
namespace {

using testing::build_path;
using testing::example_model;
using testing::run_program;
using testing::run_qlint;
using testing::run_qlint_configured;
using testing::run_qlint_with_env;
namespace fs = std::filesystem;

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

// ---- Custom operators: tests/e2e/torchvision_ops_model.py calls torchvision::nms ----------

// torchvision's operator library, as Debian's python3-torchvision installs it (asked from
// PyTorch itself rather than spelled out here).
std::string torchvision_ops_library() {
  auto r = run_program({QLINT_PYTHON, "-c",
                        "import glob, os, torchvision; "
                        "print(glob.glob(os.path.join(os.path.dirname(torchvision.__file__), '_C*.so'))[0])"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out.substr(0, r.out.find('\n'));
}

const std::string kNmsModel = build_path("tests/models/torchvision_nms.pt");

TEST(CustomOperators, AnUnknownOperatorNamesItsLibrary) {
  auto r = run_qlint({"check", kNmsModel});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "qlint: error: build/tests/models/torchvision_nms.pt: uses the operator torchvision::nms, which "
            "LibTorch does not know; load the library that defines it with --load-library FILE (or "
            "operator-libraries in the configuration) (torchvision's operators are in " +
                torchvision_ops_library() + ")\n");
}

TEST(CustomOperators, LoadLibraryMakesTheModelReadable) {
  auto check = run_qlint({"check", "--load-library", torchvision_ops_library(), kNmsModel});
  EXPECT_EQ(check.exit_code, 1) << check.err;
  EXPECT_NE(check.out.find("tests/e2e/torchvision_ops_model.py:20:36: warning: `==` compares `kept`"),
            std::string::npos)
      << check.out;
  auto sim = run_qlint({"sim", "--load-library", torchvision_ops_library(), kNmsModel, "--random-input", "5x4,5"});
  EXPECT_EQ(sim.exit_code, 0) << sim.err;
  EXPECT_NE(sim.out.find("aten::eq"), std::string::npos) << sim.out;
}

TEST(CustomOperators, AMissingLibraryIsOneLine) {
  auto r = run_qlint({"check", "--load-library", "/nonexistent/libops.so", kNmsModel});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "qlint: error: build/tests/models/torchvision_nms.pt: cannot load the operator library "
            "/nonexistent/libops.so: /nonexistent/libops.so: cannot open shared object file: No such file or "
            "directory\n");
}

// `operator-libraries` in .qlint.toml, relative to the configuration file.
class OperatorLibrariesConfig : public testing::TempDirTest {};

TEST_F(OperatorLibrariesConfig, RelativePathsAreFromTheConfigFile) {
  fs::create_directories(dir_ / "ops");
  fs::create_symlink(torchvision_ops_library(), dir_ / "ops" / "torchvision_ops.so");
  fs::copy_file(kNmsModel, dir_ / "model.pt");
  std::ofstream(dir_ / ".qlint.toml") << "operator-libraries = [\"ops/torchvision_ops.so\"]\n";
  auto r = run_qlint_configured({"check", "--trust-config-libraries", tmp("model.pt")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("[eq-nonzero-const]"), std::string::npos) << r.out;
}

// `sim` and `dump` take the configuration as `check` does (public round 23: `sim` ignored it and
// exited 2, advising the very setting it ignored), trusted alike.
TEST_F(OperatorLibrariesConfig, SimAndDumpReadThemToo) {
  fs::create_directories(dir_ / "ops");
  fs::create_symlink(torchvision_ops_library(), dir_ / "ops" / "torchvision_ops.so");
  fs::copy_file(kNmsModel, dir_ / "model.pt");
  std::ofstream(dir_ / ".qlint.toml") << "operator-libraries = [\"ops/torchvision_ops.so\"]\nbits = 8\n";
  auto sim = run_qlint_configured({"sim", "--trust-config-libraries", tmp("model.pt"), "--random-input", "5x4,5"});
  EXPECT_EQ(sim.exit_code, 0) << sim.err;
  EXPECT_NE(sim.out.find(" at int8 "), std::string::npos) << sim.out;  // the configuration's bits
  auto dump = run_qlint_configured({"dump", "--trust-config-libraries", tmp("model.pt")});
  EXPECT_EQ(dump.exit_code, 0) << dump.err;
  auto untrusted = run_qlint_configured({"sim", tmp("model.pt"), "--random-input", "5x4,5"});
  EXPECT_EQ(untrusted.exit_code, 2);
  EXPECT_NE(untrusted.err.find("--trust-config-libraries"), std::string::npos) << untrusted.err;
  auto isolated = run_qlint_configured({"sim", "--isolated", tmp("model.pt"), "--random-input", "5x4,5"});
  EXPECT_EQ(isolated.exit_code, 2);
  EXPECT_NE(isolated.err.find("load the library that defines it"), std::string::npos) << isolated.err;
}

// A configuration in the scanned tree is someone else's: its libraries load only when trusted.
TEST_F(OperatorLibrariesConfig, AreRefusedUnlessTrusted) {
  fs::copy_file(kNmsModel, dir_ / "model.pt");
  std::ofstream(dir_ / ".qlint.toml") << "operator-libraries = [\"evil.so\"]\n";
  auto r = run_qlint_configured({"check", tmp("model.pt")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--trust-config-libraries"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  auto env = run_qlint_with_env({"QLINT_TRUST_CONFIG_LIBRARIES=1"}, {"check", tmp("model.pt")});
  EXPECT_NE(env.err.find("cannot load the operator library"), std::string::npos) << env.err;
}

}  // namespace
}  // namespace qlint
