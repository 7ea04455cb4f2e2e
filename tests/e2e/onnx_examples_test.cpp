// The ONNX front end against the TorchScript one on the same models: every example that ONNX can
// export is prepared for int8 QAT, calibrated and written twice by examples/export_onnx.py, as
// torch.onnx.export's QDQ model (build/examples/onnx/<set>/<stem>.onnx) and as the traced archive
// of the same prepared model (<stem>.pt beside it). qlint must report the same rules at the same
// lines of the user's Python on both, or, where ONNX legitimately shows something else, exactly
// the findings tests/e2e/onnx_example_expectations.txt lists, each with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "expectations.h"
#include "run.h"
#include "temp_dir.h"

namespace qlint {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::build_path;
using testing::check_example_json;
using testing::findings_of;
using testing::lines_of;
using testing::run_qlint;

const std::vector<std::string> kOnnxSets = {"seed", "rules", "clean", "zoo"};

struct Example {
  std::string name;  // "set/stem", as the expectation file names it
  std::string onnx_path;
  std::string archive_path;  // the traced archive of the same prepared model
};

std::vector<Example> onnx_exports() {
  std::vector<Example> out;
  for (const auto& set : kOnnxSets)
    for (const auto& entry : fs::directory_iterator(build_path("examples/onnx/" + set)))
      if (entry.path().extension() == ".onnx") {
        fs::path archive = entry.path();
        archive.replace_extension(".pt");
        out.push_back({set + "/" + entry.path().stem().string(), entry.path().string(), archive.string()});
      }
  std::sort(out.begin(), out.end(), [](const Example& a, const Example& b) { return a.name < b.name; });
  return out;
}

TEST(OnnxExamples, EveryExampleIsExportedOrSaysWhyNot) {
  testing::expect_every_example_exported_or_exempt(kOnnxSets, "ONNX_EXPORTABLE", [](const auto& set, const auto& stem) {
    return build_path("examples/onnx/" + set + "/" + stem + ".onnx");
  });
}

// A listed difference that is gone (either front end got better) is removed from the file, not
// kept as a second truth.
TEST(OnnxExamples, SameRulesAtTheSameLinesAsTheTracedArchive) {
  auto differences = testing::read_expectations("onnx_example_expectations.txt");
  std::set<std::string> compared;
  const auto exports = onnx_exports();
  EXPECT_GE(exports.size(), 50u);
  for (const auto& e : exports) {
    SCOPED_TRACE(e.onnx_path);
    compared.insert(e.name);
    json onnx = check_example_json(e.onnx_path);
    json archive = check_example_json(e.archive_path);
    auto listed = differences.find(e.name);
    if (listed == differences.end()) {
      EXPECT_EQ(lines_of(onnx), lines_of(archive));
      continue;
    }
    testing::Findings want;
    for (const auto& x : listed->second) want.insert({x.rule, x.location});
    EXPECT_EQ(findings_of(onnx), want);
    EXPECT_NE(lines_of(listed->second), lines_of(archive)) << "the archive now agrees: drop it from the file";
  }
  for (const auto& [model, unused] : differences)
    EXPECT_TRUE(compared.count(model)) << model << " is listed but has no ONNX export";
}

// The module a finding is in (JSON `module`) comes from the scopes the exporter writes into node
// names, and is one the archive names at the same rule and line: `encoder.1.0` for a nested
// Sequential's member, `head` for a QDQ pair on the output of `head`. (Findings only one of the
// two has are the differences the test above checks.)
TEST(OnnxExamples, FindingsAreInTheModulesTheArchiveNames) {
  size_t in_a_child = 0;
  for (const auto& e : onnx_exports()) {
    SCOPED_TRACE(e.onnx_path);
    auto rule_and_line = [](const json& d) {
      return std::make_pair(d["rule"].get<std::string>(), d["line"].is_number() ? d["line"].get<int>() : 0);
    };
    const json archive = check_example_json(e.archive_path), onnx = check_example_json(e.onnx_path);
    std::map<std::pair<std::string, int>, std::set<std::string>> archive_modules;
    for (const auto& d : archive["diagnostics"])
      archive_modules[rule_and_line(d)].insert(d["module"].get<std::string>());
    for (const auto& d : onnx["diagnostics"]) {
      if (!archive_modules.count(rule_and_line(d))) continue;  // a listed difference
      const std::string module = d["module"];
      EXPECT_EQ(archive_modules[rule_and_line(d)].count(module), 1u)
          << d["rule"] << " at line " << d["line"] << " in `" << module << "`";
      in_a_child += !module.empty();
    }
  }
  EXPECT_GE(in_a_child, 4u) << "findings inside child modules are what this test is about";
}

// The seed S1 as a user sees it: each hazard at its Python line, with the scale the QDQ pair
// states (the int8 FakeQuantize's calibrated scale, written into the model by the exporter).
// A node's range is its whole statement (`mask = x[:, :, :, -1] == 1`): the operand is the
// side of `==` up to the assignment.
TEST(OnnxExamples, SeedS1AtThePythonLines) {
  auto r = run_qlint({"check", build_path("examples/onnx/seed/s1_eq_one.onnx")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::string file = "s1_eq_one.py";
  EXPECT_NE(
      r.out.find(file + ":16:9: warning: `==` compares `x[:, :, :, -1]` quantized by `self.quant` on line 15 with 1"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(" 16 |         mask = x[:, :, :, -1] == 1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(file + ":15:9: warning: `self.quant` on line 15 quantizes a 0/1 mask"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("[unquantized-operand]"), std::string::npos) << r.out;
}

// The largest value of a quantized map and its top k are values of it, on the grid of the scale
// its QDQ pair states (ReduceMax is `amax`, TopK `topk`), so the message says what 1 becomes.
TEST(OnnxExamples, SelectedValuesKeepTheirScale) {
  auto r = run_qlint({"check", build_path("examples/onnx/rules/eq_after_selection.onnx")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  for (const std::string line : {":30:9: ", ":31:9: "}) {
    const size_t at = r.out.find("eq_after_selection.py" + line);
    ASSERT_NE(at, std::string::npos) << r.out;
    EXPECT_NE(r.out.find("with 1 (scale ", at), std::string::npos) << r.out;
    EXPECT_LT(r.out.find("with 1 (scale ", at), r.out.find('\n', at)) << r.out;
  }
}

// Output fake quants of a ModuleList's members are named as in Python: the exporter names their
// scales `head.levels.0.activation_post_process.scale` (yolov5's Detect head has this form).
TEST(OnnxExamples, QuantPointsOfListMembersAreNamedAsInPython) {
  auto r = run_qlint({"check", build_path("examples/onnx/zoo/detection_levels_list.onnx")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("quantized by `self.head.levels.0` on line 26 and `self.head.levels.1` on line 26 with 1"),
            std::string::npos)
      << r.out;
}

// Never worse: S5's mask is a channel of the stub's input used as a factor. Making it from the
// float value would leave a float factor with no quant point, which no ONNX edit can quantize
// exactly (only a bool cast is known to hold 0 and 1), so --fix undoes that edit, says why, and
// writes nothing.
TEST(OnnxFix, AnEditThatWouldBringAFindingIsUndone) {
  const std::string fixed = testing::build_path("onnx_fix_s5.onnx");
  fs::remove(fixed);
  auto r = run_qlint({"check", "--fix", "-o", fixed, build_path("examples/onnx/seed/s5_tiny_data.onnx")});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("Not fixed: shared-stub-mask at examples/seed/s5_tiny_data.py:15:9: the edit would bring "
                       "unquantized-operand at examples/seed/s5_tiny_data.py:18:9"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(fixed));
}

class OnnxErrors : public testing::TempDirTest {
 protected:
  // stderr is one line, "qlint: error: <file>: ...", holding `what`; exit 2.
  void expect_one_error_line(const testing::RunResult& r, const std::string& what) {
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("qlint: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
  }
};

TEST_F(OnnxErrors, TruncatedOrNotAModelIsOneLine) {
  const std::string model = testing::read_text(build_path("examples/onnx/seed/s1_eq_one.onnx"));
  for (size_t keep : {size_t{0}, model.size() / 2, model.size() - 1}) {
    SCOPED_TRACE(keep);
    std::ofstream(tmp("cut.onnx"), std::ios::binary) << model.substr(0, keep);
    expect_one_error_line(run_qlint({"check", tmp("cut.onnx")}),
                          keep == 0 ? "is not a valid ONNX model" : "is not an ONNX model");
  }
  fs::copy_file(build_path("examples/seed/s1_eq_one.pt"), tmp("archive.onnx"));
  expect_one_error_line(run_qlint({"check", tmp("archive.onnx")}), "is not an ONNX model");
}

// The same model with its tensors in a file beside it (onnx.save_model(save_as_external_data=True)):
// checked like the original while the file is there (small tensors such as scales are read into
// the model; the padding model's convolution weights stay outside, which ONNX's checker finds
// from the model's directory, not the working directory); one line naming the file once it is gone.
TEST_F(OnnxErrors, ExternalDataIsFoundBesideTheModelOrSaidMissing) {
  for (const std::string name : {"seed/s1_eq_one", "zoo/padding_mask_layers"}) {
    SCOPED_TRACE(name);
    const std::string original = build_path("examples/onnx/" + name + ".onnx"), model = tmp("external.onnx");
    auto py = testing::run_program(
        {QLINT_PYTHON, "-c",
         "import onnx, sys; m = onnx.load(sys.argv[1]); onnx.save_model(m, sys.argv[2], save_as_external_data=True, "
         "all_tensors_to_one_file=True, location='tensors.bin', size_threshold=0)",
         original, model});
    ASSERT_EQ(py.exit_code, 0) << py.err;
    ASSERT_TRUE(fs::exists(tmp("tensors.bin")));
    EXPECT_EQ(check_example_json(model)["diagnostics"].size(), check_example_json(original)["diagnostics"].size());
    EXPECT_EQ(findings_of(check_example_json(model)), findings_of(check_example_json(original)));
    fs::remove(tmp("tensors.bin"));
    expect_one_error_line(run_qlint({"check", model}), "in `tensors.bin`, which is missing beside the model");
  }
}

// Exported without verbose=True, nodes have no Python stack: each finding names its ONNX node, and
// the hint to export with verbose=True is said once per model.
TEST_F(OnnxErrors, WithoutPythonStacksFindingsNameTheNode) {
  const std::string model = tmp("no_stacks.onnx");
  auto py = testing::run_program({QLINT_PYTHON, "-c",
                                  "import onnx, sys; m = onnx.load(sys.argv[1])\n"
                                  "for n in m.graph.node: n.doc_string = ''\n"
                                  "onnx.save(m, sys.argv[2])",
                                  build_path("examples/onnx/seed/s1_eq_one.onnx"), model});
  ASSERT_EQ(py.exit_code, 0) << py.err;
  auto r = run_qlint({"check", model});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("  note: at ONNX node `/Equal`, which has no Python stack (export with "
                       "torch.onnx.export(..., verbose=True) for Python lines)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  note: at ONNX node `/Mul`, which has no Python stack\n"), std::string::npos) << r.out;
  json doc = check_example_json(model);
  std::set<std::string> nodes;
  for (const auto& d : doc["diagnostics"]) {
    EXPECT_TRUE(d["line"].is_null());
    nodes.insert(d["node"].get<std::string>());
  }
  EXPECT_EQ(nodes, (std::set<std::string>{"/Equal", "/Mul", "/activation_post_process/QuantizeLinear"}));
}

TEST_F(OnnxErrors, SimulationSaysItNeedsTheArchive) {
  const std::string model = build_path("examples/onnx/seed/s1_eq_one.onnx");
  expect_one_error_line(run_qlint({"check", "--random-input", "1x2x4x4", model}), "cannot yet simulate");
  expect_one_error_line(run_qlint({"check", "--fix", "-o", tmp("fixed.onnx"), "--random-input", "1x2x4x4", model}),
                        "cannot yet simulate");
  EXPECT_FALSE(fs::exists(tmp("fixed.onnx")));
}

// A model whose tensors stay in a file beside it is not rewritten: one line, nothing written.
TEST_F(OnnxErrors, FixRefusesModelsWithTensorsOutside) {
  auto py = testing::run_program(
      {QLINT_PYTHON, "-c",
       "import onnx, sys; m = onnx.load(sys.argv[1]); onnx.save_model(m, sys.argv[2], save_as_external_data=True, "
       "all_tensors_to_one_file=True, location='tensors.bin', size_threshold=0)",
       build_path("examples/onnx/seed/s1_eq_one.onnx"), tmp("external.onnx")});
  ASSERT_EQ(py.exit_code, 0) << py.err;
  auto r = run_qlint({"check", "--fix", "-o", tmp("fixed.onnx"), tmp("external.onnx")});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("keeps tensors in files beside it"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp("fixed.onnx")));
}

}  // namespace
}  // namespace qlint
