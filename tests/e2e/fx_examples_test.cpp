// The FX exports of the example models (build/examples/fx/<set>, written by python/qlint_fx.py)
// against their TorchScript archives: the same rules at the same lines of the user's Python, or,
// where the FX front end legitimately sees something else, exactly the FX findings that
// tests/e2e/fx_example_expectations.txt lists, each with the reason. And the names of the code
// torch.fx generates: independent of export order in archives, pseudo-files in FX exports.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
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
using testing::example_model;
using testing::Expected;
using testing::findings_of;
using testing::lines_of;
using testing::location_of;
using testing::run_program;
using testing::run_qlint;

// The example sets CMake exports as FX graphs; flows and qat are traced archives (`build()`).
const std::vector<std::string> kFxSets = {"seed", "rules", "clean", "sim", "zoo", "torchvision"};
const std::string kFxSuffix = ".fx.json";

struct Example {
  std::string name;  // "set/stem", as the expectation files name it
  std::string fx_path;
};

std::vector<Example> fx_exports() {
  std::vector<Example> out;
  for (const auto& set : kFxSets) {
    for (const auto& entry : fs::directory_iterator(build_path("examples/fx/" + set))) {
      std::string file = entry.path().filename().string();
      if (file.size() <= kFxSuffix.size() || file.compare(file.size() - kFxSuffix.size(), kFxSuffix.size(), kFxSuffix))
        continue;
      out.push_back({set + "/" + file.substr(0, file.size() - kFxSuffix.size()), entry.path().string()});
    }
  }
  std::sort(out.begin(), out.end(), [](const Example& a, const Example& b) { return a.name < b.name; });
  return out;
}

// An example without an FX export must say why in its source (`FX_TRACEABLE = False`).
// (torchvision's models come from one script; FxFrontEnd.FindsExactlyWhatTorchScriptFinds counts them.)
TEST(FxExamples, EveryExampleIsExportedOrSaysWhyNot) {
  std::vector<std::string> sets;
  for (const auto& set : kFxSets)
    if (set != "torchvision") sets.push_back(set);
  testing::expect_every_example_exported_or_exempt(sets, "FX_TRACEABLE", [](const auto& set, const auto& stem) {
    return build_path("examples/fx/" + set + "/" + stem + kFxSuffix);
  });
}

// Every model the expectation file lists must still differ: a listed difference that is gone
// (the importer or the TorchScript side got better) is removed from the file, not kept as a
// second truth.
TEST(FxExamples, SameRulesAtTheSameLinesAsTorchScript) {
  auto differences = testing::read_expectations("fx_example_expectations.txt");
  std::set<std::string> compared;
  for (const auto& e : fx_exports()) {
    SCOPED_TRACE(e.fx_path);
    compared.insert(e.name);
    json fx = check_example_json(e.fx_path);
    json ts = check_example_json(example_model(e.name));
    auto listed = differences.find(e.name);
    if (listed == differences.end()) {
      EXPECT_EQ(lines_of(fx), lines_of(ts));
      continue;
    }
    std::multiset<std::pair<std::string, std::string>> want;
    for (const auto& x : listed->second) want.insert({x.rule, x.location});
    EXPECT_EQ(findings_of(fx), want);
    EXPECT_NE(lines_of(listed->second), lines_of(ts)) << "TorchScript now agrees: drop it from the file";
  }
  for (const auto& [model, unused] : differences)
    EXPECT_TRUE(compared.count(model)) << model << " is listed but has no FX export";
}

class FxGeneratedCode : public testing::TempDirTest {};

// torch.fx numbers the code it generates (`<eval_with_key>.N`) per process, and traced FX-QAT
// archives keep that name in their source ranges. CMake exports examples/flows in one run, where
// this model is the fourth FX model; exported alone, it must give the same findings, name included.
TEST_F(FxGeneratedCode, NamesInArchivesDoNotDependOnExportOrder) {
  const std::string stem = "fx_qat_prepared_traced";
  auto r = run_program({QLINT_PYTHON, std::string(QLINT_SOURCE_DIR) + "/examples/export.py", "--out", tmp("models"),
                        "--inputs", tmp("inputs"), std::string(QLINT_SOURCE_DIR) + "/examples/flows/" + stem + ".py"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json alone = check_example_json(tmp("models/" + stem + ".pt"));
  json in_set = check_example_json(example_model("flows/" + stem));
  ASSERT_FALSE(in_set["diagnostics"].empty());
  EXPECT_EQ(in_set["diagnostics"][0]["file"].get<std::string>().rfind("<eval_with_key>.", 0), 0u);
  EXPECT_EQ(findings_of(alone), findings_of(in_set));
}

// A model that is already a GraphModule runs FX's generated code, so that is where its FX export
// locates nodes: by the pseudo-file's own name (not as a path under the working directory), with
// its source lines from Python's linecache, and SARIF names it as a logical location.
TEST_F(FxGeneratedCode, StaysAPseudoFileInFxExports) {
  const std::string fx = tmp("graph_module.fx.json");
  auto r = run_program({QLINT_PYTHON, std::string(QLINT_E2E_DIR) + "/fx_graph_module_export.py", QLINT_SOURCE_DIR, fx});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The exporting process traced nothing before: its generated code is `<eval_with_key>.0`.
  const std::multiset<std::pair<std::string, std::string>> want = {{"shared-stub-mask", "<eval_with_key>.0:5:13-5:26"},
                                                                   {"eq-nonzero-const", "<eval_with_key>.0:7:10-7:22"},
                                                                   {"bool-arith", "<eval_with_key>.0:9:11-9:28"}};
  EXPECT_EQ(findings_of(check_example_json(fx)), want);
  auto text = run_qlint({"check", fx});
  EXPECT_NE(text.out.find(" 7 |     eq = getitem == 1;  getitem = None\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("note: <eval_with_key>.0 is code torch.fx generated; the model file does not record"),
            std::string::npos)
      << text.out;
  const json sarif = json::parse(run_qlint({"check", "--format", "sarif", fx}).out);
  const json& location = sarif["runs"][0]["results"][0]["locations"][0];
  EXPECT_EQ(location["logicalLocations"][0]["name"], "<eval_with_key>.0") << location.dump(1);
}

}  // namespace
}  // namespace qlint
