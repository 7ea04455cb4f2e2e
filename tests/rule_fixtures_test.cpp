// Runs every rule over each text-IR fixture in tests/fixtures/rules and compares the
// diagnostics with the expectations written inline on the line of the node that must trigger:
// `# expect: rule-id[, rule-id]`, each id optionally followed by `{{text}}`, text the
// diagnostic's message (or one of its notes) must contain (`# expect: eq-nonzero-const {{compares}}`). Any
// diagnostic without an expectation fails the test, so a fixture without expectations asserts
// silence.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "analysis/facts.h"
#include "analysis/fake_quant.h"
#include "fixture_files.h"
#include "ir/text.h"
#include "ir/verifier.h"
#include "rewriter/edits/edit_kind.h"
#include "rules/registry.h"

namespace qlint {
namespace {

using Finding = std::pair<int, std::string>;  // (fixture line, rule id)

// One inline expectation: a finding and, from `{{...}}`, text its message must contain.
struct Expectation {
  Finding finding;
  std::string message_part;  // empty: any message
};

// The expectations written in a fixture; a malformed `# expect:` comment adds to `errors`.
std::vector<Expectation> expected_findings(const std::string& text, std::vector<std::string>& errors) {
  static const std::regex expect(R"(#\s*expect:(.*)$)");
  // One item: a rule id, optionally `{{text}}` (text without `}}`), then a comma or the end.
  static const std::regex item(R"(\s*([a-z0-9-]+)\s*(?:\{\{((?:[^}]|\}(?!\}))*)\}\})?\s*(,|$))");
  std::vector<Expectation> out;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::smatch m;
    if (!std::regex_search(line, m, expect)) continue;
    const std::string items = m[1];
    auto at = items.cbegin();
    bool last = false;
    std::smatch im;
    while (!last && std::regex_search(at, items.cend(), im, item, std::regex_constants::match_continuous)) {
      out.push_back({{number, im[1]}, im[2]});
      at = im[0].second;
      last = im[3].length() == 0;
    }
    if (!last || at != items.cend())
      errors.push_back(std::to_string(number) + ": malformed expectation `" + std::string(m[0]) +
                       "`; write `# expect: rule-id {{message text}}, other-rule`");
  }
  return out;
}

class RuleFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(RuleFixture, DiagnosticsMatchInlineExpectations) {
  std::string text = testing::read_file(GetParam());
  ir::ParsedModel parsed = ir::parse_model(text);
  ASSERT_TRUE(ir::verify(parsed.model).empty());
  auto facts = analysis::Facts::compute(parsed.model);
  std::multimap<Finding, std::string> actual;  // -> the diagnostic's message
  for (const auto& d : rules::run_all(facts)) {
    std::string text = d.message;  // and its notes, which `{{...}}` may match too
    for (const auto& note : d.notes) text += "\n  note: " + note;
    actual.insert({{parsed.node_lines.at(d.node), d.rule}, text});
  }
  std::vector<std::string> errors;
  std::vector<Expectation> expected = expected_findings(text, errors);
  for (const auto& error : errors) ADD_FAILURE() << GetParam() << ":" << error;
  std::set<Finding> expected_set;
  for (const auto& e : expected) expected_set.insert(e.finding);
  for (const auto& [finding, message] : actual)
    EXPECT_TRUE(expected_set.count(finding))
        << GetParam() << ":" << finding.first << ": unexpected " << finding.second << ": " << message;
  for (const auto& e : expected) {
    const auto& [line, rule] = e.finding;
    auto [first, end] = actual.equal_range(e.finding);
    if (first == end) {
      ADD_FAILURE() << GetParam() << ":" << line << ": missing " << rule;
      continue;
    }
    bool contains =
        std::any_of(first, end, [&](const auto& a) { return a.second.find(e.message_part) != std::string::npos; });
    std::string messages;
    for (auto it = first; it != end; ++it) messages += "\n  " + it->second;
    EXPECT_TRUE(contains) << GetParam() << ":" << line << ": the " << rule << " message does not contain \""
                          << e.message_part << "\"; it reads:" << messages;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RuleFixture, ::testing::ValuesIn(testing::fixture_files("rules")),
                         [](const auto& info) { return testing::fixture_test_name(info.param); });

// One test per registered rule, so the test list shows what rules/rules.cmake registered
// (tests/e2e/add_rule_test.sh looks for a new rule there). Each has a fixture named after it,
// except rules without a check function, which run after the others on their diagnostics.
class RegisteredRule : public ::testing::TestWithParam<std::string> {};

std::vector<std::string> registered_rule_ids() {
  std::vector<std::string> ids;
  for (const auto& rule : rules::all_rules()) ids.push_back(rule.id);
  return ids;
}

TEST_P(RegisteredRule, HasAFixture) {
  const rules::Rule* rule = rules::find_rule(GetParam());
  ASSERT_NE(rule, nullptr);
  if (rule->check == nullptr) GTEST_SKIP() << GetParam() << " runs after the other rules";
  std::string fixture = std::string(QLINT_FIXTURES_DIR) + "/rules/" + testing::fixture_test_name(GetParam()) + ".qir";
  EXPECT_TRUE(std::filesystem::exists(fixture)) << GetParam() << " has no fixture " << fixture;
}

INSTANTIATE_TEST_SUITE_P(Rules, RegisteredRule, ::testing::ValuesIn(registered_rule_ids()),
                         [](const auto& info) { return testing::fixture_test_name(info.param); });

// ---- sim-divergence: the rule judges the simulation's results ------------------------------

// The sim-divergence fixture with simulated results: what `qlint check --input` feeds the rules.
TEST(SimDivergence, ReportsFlippedComparisonsAndLowSqnrOutputs) {
  std::string text = testing::read_file(std::string(QLINT_FIXTURES_DIR) + "/rules/sim_divergence.qir");
  ir::ParsedModel parsed = ir::parse_model(text);
  analysis::SimulatedRun run;
  run.bits = 16;
  run.batches = 1;
  run.min_sqnr_db = 40;
  auto key = [](const std::string& kind, int line, int column, int end_column) {
    return analysis::comparison_key(kind, {"/src/m.py", line, column, line, end_column});
  };
  run.comparisons[key("aten::gt", 21, 16, 28)] = {4, 2};
  run.comparisons[key("aten::eq", 22, 16, 22)] = {8, 4};
  run.comparisons[key("aten::eq", 25, 16, 24)] = {8, 3};
  run.comparisons[key("aten::eq", 27, 16, 24)] = {8, 2};
  run.outputs = {{"output 0", 12.34}};
  analysis::SimulationEvidence evidence;
  evidence.run = run;
  auto facts = analysis::Facts::compute(parsed.model, {}, evidence);
  std::map<int, Diagnostic> found;  // fixture line -> diagnostic
  for (const auto& d : rules::run_all(facts))
    if (d.rule == "sim-divergence") found[parsed.node_lines.at(d.node)] = d;
  ASSERT_EQ(found.size(), 5u);
  auto line_of = [&](const std::string& part) {
    std::istringstream in(text);
    std::string line;
    for (int number = 1; std::getline(in, line); ++number)
      if (line.find(part) != std::string::npos) return number;
    return 0;
  };
  const Diagnostic& gt = found[line_of("aten::gt(")];
  EXPECT_EQ(gt.message.rfind("`energy > 0.5` gives a different result for 2 of 4 elements once quantized (int16 "
                             "simulation on 1 input batch); ",
                             0),
            0u)
      << gt.message;
  EXPECT_EQ(gt.evidence_node, gt.node);  // how the command line recognises a comparison finding
  // The rule reports eq-nonzero-const's comparison too; the command line confirms it on the
  // static finding instead (cli/evidence.cpp).
  EXPECT_NE(found[line_of("aten::eq(")].message.find("4 of 8 elements"), std::string::npos);
  // Two tensors compared for equality (a peak test, `hmax == heat`): no constant to compare
  // with 0 instead; the advice is the float comparison, and why ties appear.
  const Diagnostic& ties = found[line_of("aten::eq(%mag")];
  EXPECT_NE(ties.message.find("keep the comparison in float: quantization puts values that differ in float on one "
                              "step"),
            std::string::npos)
      << ties.message;
  EXPECT_EQ(ties.message.find("compare with 0"), std::string::npos) << ties.message;
  // Exact integer indices compared after a flipped threshold wrote them (PointNet++'s ball query,
  // `group_idx[sqrdists > radius ** 2] = N`, then `group_idx == N`): the flip is the threshold's.
  const Diagnostic& last = found[line_of("aten::eq(%idx")];
  EXPECT_NE(last.message.find("though its operands carry no rounding: they come from `energy > 0.5` on line 21, "
                              "which flips first"),
            std::string::npos)
      << last.message;
  // The output, at forward's whole return statement (without its comment).
  const Diagnostic& output = found[line_of("callee=\"dequant.forward\"](")];
  EXPECT_EQ(output.message.rfind("output 0 keeps only 12.3 dB SQNR against float (threshold 40 dB, int16 simulation on "
                                 "1 input batch); ",
                                 0),
            0u)
      << output.message;
  EXPECT_EQ(output.evidence_node, nullptr);
  EXPECT_EQ(output.loc.line, 24);
  EXPECT_EQ(output.loc.column, 9);
  EXPECT_EQ(output.loc.end_column, 35);

  // Nothing flipped and an exact output: silence.
  run.comparisons[key("aten::gt", 21, 16, 28)].differing = 0;
  run.comparisons[key("aten::eq", 22, 16, 22)].differing = 0;
  run.comparisons[key("aten::eq", 25, 16, 24)].differing = 0;
  run.comparisons[key("aten::eq", 27, 16, 24)].differing = 0;
  run.outputs = {{"output 0", std::numeric_limits<double>::infinity()}};
  evidence.run = run;
  auto clean = analysis::Facts::compute(parsed.model, {}, evidence);
  for (const auto& d : rules::run_all(clean)) EXPECT_NE(d.rule, "sim-divergence") << d.message;
}

// An argmax whose indices the simulation saw change is reported, with the fix that computes its
// operand from the stub's float input; a bool output (the mask a flipped threshold makes) is
// judged by that threshold, not by its SQNR, which would repeat the flip with advice that does
// not apply (a public YOLOv8 decode: "output 1 keeps only 6.0 dB").
TEST(SimDivergence, ReportsChangedIndicesAndLeavesBoolOutputsToTheirComparison) {
  const std::string text = R"IR(qlint-ir 1
model "picks.qir"
module "" "__torch__.Model"
module "quant" "__torch__.torch.ao.quantization.stubs.QuantStub"
source "/src/m.py" 19 "        q = self.quant(x)"
source "/src/m.py" 20 "        best = q.argmax(-1)"
source "/src/m.py" 21 "        keep = q > 0.5"
func "forward" in "" (%self : Module<>, %x : Tensor) {
  %false : bool = prim::Constant[value=false]()
  %dim : int = prim::Constant[value=-1]()
  %half : float = prim::Constant[value=0.5]()
  %quant : Module<quant> = prim::GetAttr[name="quant"](%self)
  %q : Tensor = prim::CallMethod[name="forward", callee="quant.forward"](%quant, %x) loc("/src/m.py":19:13-19:23)
  %best : Tensor = aten::argmax(%q, %dim, %false) loc("/src/m.py":20:16-20:24)
  %keep : Tensor = aten::gt(%q, %half) loc("/src/m.py":21:16-21:23)
  %out : Tuple[Tensor, Tensor] = prim::TupleConstruct(%best, %keep)
  return (%out)
}
func "forward" in "quant" (%self : Module<quant>, %x : Tensor) {
  return (%x)
}
)IR";
  ir::ParsedModel parsed = ir::parse_model(text);
  analysis::SimulatedRun run;
  run.bits = 16;
  run.batches = 1;
  run.min_sqnr_db = 40;
  run.comparisons[analysis::comparison_key("aten::argmax", {"/src/m.py", 20, 16, 20, 24})] = {8, 3};
  run.comparisons[analysis::comparison_key("aten::gt", {"/src/m.py", 21, 16, 21, 23})] = {64, 1};
  // Both outputs are integers and bools: PyTorch's SQNR of such outputs says nothing useful.
  run.outputs = {{"output 0", 3.1, "", true}, {"output 1", 9.5, "", true}};
  analysis::SimulationEvidence evidence;
  evidence.run = run;
  auto facts = analysis::Facts::compute(parsed.model, {}, evidence);
  std::vector<Diagnostic> found;
  for (auto& d : rules::run_all(facts))
    if (d.rule == "sim-divergence") found.push_back(std::move(d));
  ASSERT_EQ(found.size(), 2u);  // the argmax and the threshold; no output
  const Diagnostic& best = found[0].node->kind == "aten::argmax" ? found[0] : found[1];
  EXPECT_EQ(best.message.rfind("`q.argmax` gives a different integer result for 3 of 8 elements once quantized (int16 "
                               "simulation on 1 input batch): values closer than a quantization step (near-ties) pick "
                               "another element once rounded; ",
                               0),
            0u)
      << best.message;
  EXPECT_EQ(best.evidence_node, best.node);
  ASSERT_EQ(best.fixes.size(), 1u);
  EXPECT_NE(best.fixes[0].description.find("compute `argmax`'s operand from the float input of `self.quant`"),
            std::string::npos)
      << best.fixes[0].description;
}

// ---- Fix fixtures: the edits the rules propose --------------------------------------------

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
      for (const auto& e : fix.edits)
        actual.insert({parsed.node_lines.at(e.node), rewriter::edit_kind(e.kind).test_name(e)});
  EXPECT_EQ(actual, expected_edits(text)) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixFixture, ::testing::ValuesIn(testing::fixture_files("fixes")),
                         [](const auto& info) { return testing::fixture_test_name(info.param); });

// In a traced QAT model new fake quants take the range of the model's own (int8 in the
// fixture); a bool mask's is exact at scale 1, the others wait for --fix to calibrate them.
TEST(NewFakeQuant, TakesTheModelsRangeAndAnExactScaleForMasks) {
  ir::ParsedModel parsed =
      ir::parse_model(testing::read_file(std::string(QLINT_FIXTURES_DIR) + "/fixes/traced_qat.qir"));
  auto facts = analysis::Facts::compute(parsed.model);
  int masks = 0, calibrated = 0;
  for (const auto& d : rules::run_all(facts))
    for (const auto& fix : d.fixes)
      for (const auto& e : fix.edits) {
        if (e.kind != Edit::Kind::NewFakeQuant) continue;
        EXPECT_EQ(e.fake_quant.quant_min, -128) << d.rule;
        EXPECT_EQ(e.fake_quant.quant_max, 127) << d.rule;
        if (e.fake_quant.mask) {
          ++masks;
          EXPECT_EQ(e.fake_quant.scale, 1.0);
          EXPECT_EQ(e.fake_quant.zero_point, 0);
          // What PyTorch's fake_quantize_per_tensor_affine computes for 0 and 1 at these
          // parameters: both exact (tests/fix/check_new_fake_quants.py checks it with PyTorch).
          for (float v : {0.0f, 1.0f})
            EXPECT_EQ(analysis::fake_quantize(v, 1.0f, 0, e.fake_quant.quant_min, e.fake_quant.quant_max), v);
        } else {
          ++calibrated;
          EXPECT_FALSE(e.fake_quant.scale.has_value()) << d.rule;
        }
      }
  EXPECT_EQ(masks, 1);
  EXPECT_EQ(calibrated, 3);  // the offset in `+`, the second call's input, the third item of `cat`
}

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
