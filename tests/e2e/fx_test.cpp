// The FX front end: every example that torch.fx can trace, exported by python/qlint_fx.py at
// build time (build/examples/fx/<set>), must give exactly the diagnostics its TorchScript
// archive gives; its graph must pass the IR verifier; FX-only limits must be said clearly.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "ir/fx/importer.h"
#include "ir/verifier.h"
#include "run.h"

namespace qlint {
namespace {

namespace fs = std::filesystem;
using testing::build_path;
using testing::example_model;
using testing::run_program;
using testing::run_qlint;

struct FxExport {
  std::string set, stem, path;
};

std::vector<FxExport> fx_exports() {
  std::vector<FxExport> out;
  for (const char* set : {"seed", "rules", "clean", "sim", "torchvision"}) {
    for (const auto& entry : fs::directory_iterator(build_path(std::string("examples/fx/") + set))) {
      std::string name = entry.path().filename().string();
      out.push_back({set, name.substr(0, name.size() - std::string(".fx.json").size()), entry.path().string()});
    }
  }
  std::sort(out.begin(), out.end(), [](const FxExport& a, const FxExport& b) { return a.path < b.path; });
  return out;
}

// The same text, rule, location and message, for both front ends. The stub class option lets
// the toolchain example show its findings too.
TEST(FxFrontEnd, FindsExactlyWhatTorchScriptFinds) {
  auto exports = fx_exports();
  // Every example but the traced QAT models and those with control flow on a shape (one of
  // ours, torchvision's ShuffleNet).
  ASSERT_EQ(exports.size(), 37u);
  size_t findings = 0;
  for (const auto& e : exports) {
    SCOPED_TRACE(e.path);
    std::vector<std::string> options = {"check", "--format", "concise", "--quant-stub-class", "ToolchainQuantStub"};
    auto args_for = [&](const std::string& model) {
      auto args = options;
      args.push_back(model);
      return args;
    };
    auto fx = run_qlint(args_for(e.path));
    auto ts = run_qlint(args_for(example_model(e.set + "/" + e.stem)));
    EXPECT_EQ(fx.exit_code, ts.exit_code) << fx.err;
    EXPECT_EQ(fx.out, ts.out);
    for (size_t at = fx.out.find("]\n"); at != std::string::npos; at = fx.out.find("]\n", at + 1)) ++findings;
  }
  EXPECT_EQ(findings, 29u);  // as tests/e2e/example_expectations.txt lists for these models
}

TEST(FxFrontEnd, ImportedGraphsPassTheVerifier) {
  for (const auto& e : fx_exports()) {
    SCOPED_TRACE(e.path);
    ir::Model model = fx::import_fx(e.path);
    EXPECT_EQ(ir::verify(model), std::vector<std::string>{});
    ASSERT_EQ(model.functions.size(), 1u);
    EXPECT_FALSE(model.source_lines.empty());
  }
}

TEST(FxFrontEnd, DirectoriesIncludeFxExports) {
  auto r = run_qlint({"check", build_path("examples/fx/seed")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("Found 11 problems in 7 models."), std::string::npos) << r.out;
}

// The S1 graph as TorchScript would build it: `x[:, :, :, -1]` is three slices and a select, and
// `==` is matched against the schema TorchScript would use.
TEST(FxFrontEnd, IndexingBecomesTorchScriptsViewChain) {
  auto r = run_qlint({"dump", build_path("examples/fx/seed/s1_eq_one.fx.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* line :
       {"%quant : Tensor(float32, [1, 2, 4, 4]) = prim::CallMethod[scope=\"Model.forward@14\", module=\"\", "
        "name=\"forward\"](%self.quant, %x) loc(\"" QLINT_SOURCE_DIR "/examples/seed/s1_eq_one.py\":15:13-15:26)",
        "%getitem : Tensor(float32, [1, 2, 4]) = aten::select[scope=\"Model.forward@14\", module=\"\"](%11, %16, %17) "
        "loc(\"" QLINT_SOURCE_DIR "/examples/seed/s1_eq_one.py\":16:16-16:30)",
        "%eq : Tensor(bool, [1, 2, 4]) = aten::eq[scope=\"Model.forward@14\", module=\"\", "
        "schema=\"aten::eq.Scalar(Tensor self, Scalar other) -> Tensor\"](%getitem, %18) "
        "loc(\"" QLINT_SOURCE_DIR "/examples/seed/s1_eq_one.py\":16:16-16:35)"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  size_t slices = 0;
  for (size_t at = r.out.find("aten::slice"); at != std::string::npos; at = r.out.find("aten::slice", at + 1)) ++slices;
  EXPECT_EQ(slices, 6u);  // three for x[:, :, :, -1], three for mask[:, :, :, None]
}

TEST(FxFrontEnd, FixAndSimulationNeedTheTorchScriptArchive) {
  std::string model = build_path("examples/fx/seed/s1_eq_one.fx.json");
  auto fix = run_qlint({"check", "--fix", "-o", "/tmp/never-written.pt", model});
  EXPECT_EQ(fix.exit_code, 2);
  EXPECT_NE(fix.err.find("is an FX export, which qlint checks but cannot rewrite (--fix); give the "
                         "TorchScript archive"),
            std::string::npos)
      << fix.err;
  EXPECT_FALSE(fs::exists("/tmp/never-written.pt"));
  auto sim = run_qlint({"check", "--random-input", "1x2x4x4", model});
  EXPECT_EQ(sim.exit_code, 2);
  EXPECT_NE(sim.err.find("cannot simulate (--input, --random-input)"), std::string::npos) << sim.err;
}

// --diff works on the source alone: for the seed models, the Python change is exactly what
// --diff on the TorchScript archive shows (after its rewrite rounds and verification).
TEST(FxFrontEnd, DiffShowsThePythonChangeTheArchiveGives) {
  auto python_diff = [](const std::string& out) { return out.substr(0, out.find("\nWould resolve")); };
  for (const char* stem : {"s1_eq_one", "s2_logical_not", "s3_mask_stub", "s4_shared_scale", "s5_tiny_data"}) {
    SCOPED_TRACE(stem);
    auto fx = run_qlint({"check", "--diff", build_path(std::string("examples/fx/seed/") + stem + ".fx.json")});
    auto ts = run_qlint({"check", "--diff", example_model(std::string("seed/") + stem)});
    EXPECT_EQ(fx.exit_code, 1) << fx.err;
    ASSERT_EQ(fx.out.rfind("--- a/examples/seed/", 0), 0u) << fx.out;
    EXPECT_EQ(python_diff(fx.out), python_diff(ts.out));
    EXPECT_NE(fx.out.find("Not verified: an FX export holds no model to run."), std::string::npos) << fx.out;
    EXPECT_NE(fx.out.find("Nothing was written (--diff)."), std::string::npos) << fx.out;
  }
}

// A fix whose Python change cannot be shown whole is not shown in part: the stub for a
// child module's operand would belong in the child's __init__, which qlint cannot place.
TEST(FxFrontEnd, DiffSkipsAFixItCannotShowWhole) {
  auto r = run_qlint({"check", "--diff", build_path("examples/fx/seed/s1_in_child.fx.json")});
  EXPECT_EQ(r.out.find("--- a/"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Not fixed: bool-arith at examples/seed/s1_in_child.py:11:16: add `self.valid_quant = "
                       "QuantStub()` to the __init__ of the module `head`"),
            std::string::npos)
      << r.out;
}

// The exporter's own error for a model torch.fx cannot trace: one line, exit 2.
TEST(FxExporter, UntraceableModelIsOneLine) {
  auto r = run_program({QLINT_PYTHON, std::string(QLINT_SOURCE_DIR) + "/python/qlint_fx.py",
                        std::string(QLINT_SOURCE_DIR) + "/examples/clean/int_and_shape_compare.py", "-o",
                        "/tmp/qlint-fx-never-written.fx.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "qlint-fx-export: error: torch.fx cannot trace Model: symbolically traced variables cannot be used as "
            "inputs to control flow\n");
  EXPECT_FALSE(fs::exists("/tmp/qlint-fx-never-written.fx.json"));
}

TEST(FxExporter, MissingFileAndClassAreOneLine) {
  std::string exporter = std::string(QLINT_SOURCE_DIR) + "/python/qlint_fx.py";
  auto missing = run_program({QLINT_PYTHON, exporter, "/nonexistent/model.py", "-o", "/tmp/x.fx.json"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err, "qlint-fx-export: error: /nonexistent/model.py: no such file\n");
  auto no_class =
      run_program({QLINT_PYTHON, exporter, std::string(QLINT_SOURCE_DIR) + "/examples/rules/reused_stub.py:Nope", "-o",
                   "/tmp/x.fx.json"});
  EXPECT_EQ(no_class.exit_code, 2);
  EXPECT_NE(no_class.err.find("defines no `Nope`"), std::string::npos) << no_class.err;
}

}  // namespace
}  // namespace qlint
