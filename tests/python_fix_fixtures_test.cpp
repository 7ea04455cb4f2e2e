// The Python change of each fix kind, through the LibTorch-free suggestion code: each fixture in
// tests/fixtures/python_fixes is a real example model's IR (`qlint dump`, its source paths
// written as @SOURCE_DIR@), and the .diff (and .notes) beside it is what `qlint --diff` printed
// for that model through the TorchScript rewriter (tests/fixtures/python_fixes/README.md). Rendering the
// rules' fixes here must give the same diff, so the suggestion code and the rewriter agree.
#include <gtest/gtest.h>

#include <regex>

#include "analysis/facts.h"
#include "fixture_files.h"
#include "ir/text.h"
#include "ir/verifier.h"
#include "rewriter/source_suggestions.h"
#include "rules/registry.h"

namespace qlint {
namespace {

const std::string kSourceDir = QLINT_SOURCE_DIR;

std::string with_source_dir(std::string text) {
  static const std::regex placeholder("@SOURCE_DIR@");
  return std::regex_replace(text, placeholder, kSourceDir);
}

// `# simulated: only-zero-or-constant` in a fixture stands for a simulation that saw only 0
// and the constant at every equality comparison, which unsafe fixes need.
analysis::SimulationEvidence evidence_for(const std::string& text, const ir::Model& model) {
  analysis::SimulationEvidence evidence;
  if (text.find("# simulated: only-zero-or-constant") == std::string::npos) return evidence;
  for (const auto& f : model.functions)
    ir::for_each_node(f->body, [&](const ir::Node& n) {
      if (n.kind == "aten::eq" || n.kind == "aten::ne")
        evidence.binary_comparisons.insert(analysis::comparison_key(n.kind, n.loc));
    });
  return evidence;
}

// As `--diff` shows paths: relative to the source tree.
std::string relative(const std::string& path) {
  return path.rfind(kSourceDir + "/", 0) == 0 ? path.substr(kSourceDir.size() + 1) : path;
}

class PythonFixFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(PythonFixFixture, RendersTheDiffThatQlintDiffPrints) {
  const std::string text = with_source_dir(testing::read_file(GetParam()));
  ir::ParsedModel parsed = ir::parse_model(text);
  ASSERT_TRUE(ir::verify(parsed.model).empty());
  auto facts = analysis::Facts::compute(parsed.model, {}, evidence_for(text, parsed.model));
  rewriter::SourceSuggestions suggestions;
  for (const auto& d : rules::run_all(facts))
    if (const Fix* fix = first_applicable_fix(d, /*unsafe_fixes=*/true))
      for (const Edit& e : fix->edits) suggestions.add(parsed.model, e);
  const std::string stem = GetParam().substr(0, GetParam().size() - 4);
  const std::string expected = testing::read_file(stem + ".diff");
  ASSERT_FALSE(expected.empty()) << "no .diff beside " << GetParam();
  EXPECT_EQ(suggestions.diff(relative), expected) << GetParam();
  std::string notes;
  for (const auto& note : suggestions.notes()) notes += note + "\n";
  EXPECT_EQ(notes, with_source_dir(testing::read_file(stem + ".notes"))) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Fixtures, PythonFixFixture, ::testing::ValuesIn(testing::fixture_files("python_fixes")),
                         [](const auto& info) { return testing::fixture_test_name(info.param); });

}  // namespace
}  // namespace qlint
