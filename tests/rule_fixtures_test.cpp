// Runs every rule over each text-IR fixture in tests/fixtures/rules and compares the
// diagnostics with the expectations written inline, `# expect: rule-id[, rule-id]`, on the
// line of the node that must trigger. Any diagnostic without an expectation fails the test,
// so a fixture without expectations asserts silence.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "analysis/facts.h"
#include "fixture_files.h"
#include "ir/text.h"
#include "ir/verifier.h"
#include "rules/registry.h"

namespace qlint {
namespace {

using Finding = std::pair<int, std::string>;  // (fixture line, rule id)

std::multiset<Finding> expected_findings(const std::string& text) {
  static const std::regex expect(R"(#\s*expect:\s*(.*)$)");
  static const std::regex rule_id(R"([a-z0-9-]+)");
  std::multiset<Finding> out;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::smatch m;
    if (!std::regex_search(line, m, expect)) continue;
    std::string ids = m[1];
    for (std::sregex_iterator it(ids.begin(), ids.end(), rule_id), end; it != end; ++it)
      out.insert({number, it->str()});
  }
  return out;
}

class RuleFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(RuleFixture, DiagnosticsMatchInlineExpectations) {
  std::string text = testing::read_file(GetParam());
  ir::ParsedModel parsed = ir::parse_model(text);
  ASSERT_TRUE(ir::verify(parsed.model).empty());
  auto facts = analysis::Facts::compute(parsed.model);
  std::multiset<Finding> actual;
  for (const auto& d : rules::run_all(facts)) actual.insert({parsed.node_lines.at(d.node), d.rule});
  std::multiset<Finding> expected = expected_findings(text);
  for (const auto& [line, rule] : actual)
    EXPECT_TRUE(expected.count({line, rule})) << GetParam() << ":" << line << ": unexpected " << rule;
  for (const auto& [line, rule] : expected)
    EXPECT_TRUE(actual.count({line, rule})) << GetParam() << ":" << line << ": missing " << rule;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RuleFixture, ::testing::ValuesIn(testing::fixture_files("rules")),
                         [](const auto& info) { return testing::fixture_test_name(info.param); });

// ---- Fix fixtures: the edits the rules propose --------------------------------------------

std::string edit_kind(const Edit& e) {
  switch (e.kind) {
    case Edit::Kind::Reroot: return e.quantize_after_reroot ? "reroot+quantize" : "reroot";
    case Edit::Kind::QuantizeOperand: return e.cast_to_float ? "quantize+cast" : "quantize";
    case Edit::Kind::CloneStub: return "clone";
    case Edit::Kind::CompareWithZero: return "compare-with-zero";
  }
  return "?";
}

std::set<Finding> expected_edits(const std::string& text) {
  static const std::regex expect(R"(#\s*expect-fix:\s*([a-z+-]+))");
  std::set<Finding> out;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::smatch m;
    if (std::regex_search(line, m, expect)) out.insert({number, m[1]});
  }
  return out;
}

class FixFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(FixFixture, ProposedEditsMatchInlineExpectations) {
  std::string text = testing::read_file(GetParam());
  ir::ParsedModel parsed = ir::parse_model(text);
  ASSERT_TRUE(ir::verify(parsed.model).empty());
  auto facts = analysis::Facts::compute(parsed.model);
  std::set<Finding> actual;
  for (const auto& d : rules::run_all(facts))
    for (const auto& fix : d.fixes)
      for (const auto& e : fix.edits) actual.insert({parsed.node_lines.at(e.node), edit_kind(e)});
  EXPECT_EQ(actual, expected_edits(text)) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixFixture, ::testing::ValuesIn(testing::fixture_files("fixes")),
                         [](const auto& info) { return testing::fixture_test_name(info.param); });

TEST(RuleRegistry, IsSortedAndDocumented) {
  const auto& rules = rules::all_rules();
  ASSERT_FALSE(rules.empty());
  for (size_t i = 0; i < rules.size(); ++i) {
    const auto& r = rules[i];
    if (i > 0) {
      EXPECT_LT(std::string(rules[i - 1].id), std::string(r.id));
    }
    EXPECT_TRUE(std::regex_match(std::string(r.id), std::regex("[a-z0-9]+(-[a-z0-9]+)*"))) << r.id;
    for (const char* part : {r.summary, r.doc.what, r.doc.why, r.doc.example, r.doc.fix, r.doc.fix_safety})
      EXPECT_GT(std::string(part).size(), 10u) << r.id;
    EXPECT_EQ(rules::find_rule(r.id), &r);
  }
  EXPECT_EQ(rules::find_rule("no-such-rule"), nullptr);
}

TEST(StubClasses, NormalizesTorchScriptNames) {
  EXPECT_EQ(analysis::normalize_class_name("__torch__.torch.ao.quantization.stubs.___torch_mangle_12.QuantStub"),
            "torch.ao.quantization.stubs.QuantStub");
  EXPECT_EQ(analysis::normalize_class_name("__torch__.MyNet"), "MyNet");
}

}  // namespace
}  // namespace qlint
