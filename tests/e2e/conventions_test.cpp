// End-to-end: what users of other linters expect: suppressions, rule selection, exit codes,
// directories, parallel runs in a stable order, and the concise, GitHub and SARIF formats.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "run.h"
#include "temp_dir.h"

namespace qlint {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using testing::build_path;
using testing::example_model;
using testing::run_qlint;

std::vector<std::string> rules_of(const json& doc) {
  std::vector<std::string> out;
  for (const auto& d : doc["diagnostics"])
    out.push_back(d["rule"].get<std::string>() + "@" + std::to_string(d["line"].get<int>()));
  return out;
}

TEST(Conventions, SuppressionCommentsSilenceTheirLine) {
  json doc = json::parse(run_qlint({"check", "--format", "json", example_model("rules/suppressed")}).out);
  // Line 17's bare ignore silences shared-stub-mask, line 18's silences eq-nonzero-const;
  // line 19 has no comment, so bool-arith stays.
  EXPECT_EQ(rules_of(doc), std::vector<std::string>{"bool-arith@19"});
}

TEST(Conventions, UnusedSuppressionIsOptIn) {
  json on = json::parse(
      run_qlint({"check", "--format", "json", "--select", "ALL,unused-suppression", example_model("rules/suppressed")})
          .out);
  EXPECT_EQ(rules_of(on), (std::vector<std::string>{"bool-arith@19", "unused-suppression@20"}));
  EXPECT_EQ(on["diagnostics"][1]["column"], 26);  // the comment itself
  json only = json::parse(
      run_qlint({"check", "--format", "json", "--select", "unused-suppression", example_model("rules/suppressed")})
          .out);
  EXPECT_EQ(rules_of(only), std::vector<std::string>{"unused-suppression@20"});
}

TEST(Conventions, SelectIgnoreAndExitZero) {
  std::string s1 = example_model("seed/s1_eq_one");
  EXPECT_EQ(rules_of(json::parse(run_qlint({"check", "--format", "json", "--select", "bool-arith", s1}).out)),
            std::vector<std::string>{"bool-arith@17"});
  EXPECT_EQ(rules_of(json::parse(
                run_qlint({"check", "--format", "json", "--ignore", "bool-arith,shared-stub-mask", s1}).out)),
            std::vector<std::string>{"eq-nonzero-const@16"});
  EXPECT_EQ(run_qlint({"check", "--exit-zero", s1}).exit_code, 0);
  auto bad = run_qlint({"check", "--select", "no-such-rule", s1});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("unknown rule 'no-such-rule'"), std::string::npos) << bad.err;
}

TEST(Conventions, NoFilesIsQuietSuccess) {
  auto r = run_qlint({"check"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
}

TEST(Conventions, DirectoriesAreSearchedAndOrderIsStable) {
  auto one = run_qlint({"check", "--format", "json", "-j", "1", build_path("examples/seed")});
  auto many = run_qlint({"check", "--format", "json", "-j", "4", build_path("examples/seed")});
  EXPECT_EQ(one.exit_code, 1);
  EXPECT_EQ(one.out, many.out);
  json doc = json::parse(one.out);
  EXPECT_EQ(doc["models"].size(), 7u);
  std::vector<std::string> models = doc["models"];
  EXPECT_TRUE(std::is_sorted(models.begin(), models.end()));
}

TEST(Conventions, AModelNamedTwiceIsCheckedOnce) {
  auto r = run_qlint({"check", "--format", "json", example_model("seed/s2_logical_not"), build_path("examples/seed"),
                      build_path("examples/seed/../seed/s2_logical_not.pt")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  json doc = json::parse(r.out);
  ASSERT_EQ(doc["models"].size(), 7u) << r.out;  // the seven seed models, s2 where it came first
  EXPECT_NE(doc["models"][0].get<std::string>().find("s2_logical_not.pt"), std::string::npos);
}

// Simulation and fixing run models in parallel too (the simulator's state is per thread):
// the evidence must be what a sequential run gives, and every model must be fixed.
class ParallelRuns : public testing::TempDirTest {
 protected:
  std::string copies(const std::string& name) {
    fs::create_directories(dir_ / name);
    for (int i = 0; i < 4; ++i)
      fs::copy_file(example_model("seed/s1_eq_one"), dir_ / name / ("s1_" + std::to_string(i) + ".pt"));
    fs::copy_file(example_model("seed/s6_separate_stubs"), dir_ / name / "s6.pt");
    return (dir_ / name).string();
  }
};

TEST_F(ParallelRuns, SimulationEvidenceMatchesASequentialRun) {
  std::string models = copies("models"), input = build_path("examples/inputs/seed/s1_eq_one.pt");
  auto one = run_qlint({"check", "--format", "json", "-j", "1", "--input", input, models});
  auto many = run_qlint({"check", "--format", "json", "-j", "4", "--input", input, models});
  EXPECT_EQ(one.exit_code, 1) << one.err;
  EXPECT_EQ(one.out, many.out);
  EXPECT_NE(many.out.find("(scale 0.0018463): 1 becomes 1.0007"), std::string::npos) << many.out;  // evidence
}

TEST_F(ParallelRuns, EveryModelIsFixedAndVerified) {
  std::string models = copies("fix");
  auto r = run_qlint({"check", "--fix", "-j", "4", "--input", build_path("examples/inputs/seed/s1_eq_one.pt"), models});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  size_t resolved = 0, verified = 0;
  // The 3 static findings and the output's, which `check --input` reports too.
  for (size_t at = r.out.find("Resolved 4 of 4 problems"); at != std::string::npos;
       at = r.out.find("Resolved 4 of 4", at + 1))
    ++resolved;
  for (size_t at = r.out.find("SQNR 0.0 dB -> 85.8 dB"); at != std::string::npos;
       at = r.out.find("SQNR 0.0 dB -> 85.8", at + 1))
    ++verified;
  EXPECT_EQ(resolved, 4u) << r.out;
  EXPECT_EQ(verified, 4u) << r.out;  // the S1 figures of the sequential fix (README, fix_test)
}

TEST(Conventions, StatisticsCountPerRule) {
  auto r = run_qlint({"check", "--statistics", build_path("examples/seed")});
  EXPECT_NE(r.out.find("    2  eq-nonzero-const\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    3  bool-arith\n"), std::string::npos) << r.out;        // s1, s1_in_child, s2
  EXPECT_NE(r.out.find("    6  shared-stub-mask\n"), std::string::npos) << r.out;  // s1 to s5, s1_in_child
}

TEST(Formats, ConciseIsOneLinePerFinding) {
  auto r = run_qlint({"check", "--format", "concise", example_model("seed/s2_logical_not")});
  EXPECT_EQ(r.exit_code, 1);
  std::regex line(R"(examples/seed/s2_logical_not\.py:\d+:\d+: warning: .+ \[[a-z-]+\])");
  std::istringstream in(r.out);
  std::string l;
  int findings = 0;
  while (std::getline(in, l))
    if (l.rfind("Found", 0) != 0) {
      EXPECT_TRUE(std::regex_match(l, line)) << l;
      ++findings;
    }
  EXPECT_EQ(findings, 2);
}

TEST(Formats, GithubWorkflowAnnotations) {
  auto r = run_qlint({"check", "--format", "github", example_model("seed/s2_logical_not")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("::warning file=examples/seed/s2_logical_not.py,line=17,col=15,endLine=17,endColumn=38,"
                       "title=bool-arith::`*` mixes a quantized tensor"),
            std::string::npos)
      << r.out;
}

TEST(Formats, SarifHasWhatCodeScanningNeeds) {
  auto r = run_qlint({"check", "--format", "sarif", example_model("seed/s1_eq_one")});
  EXPECT_EQ(r.exit_code, 1);
  json sarif = json::parse(r.out);
  EXPECT_EQ(sarif["version"], "2.1.0");
  const json& run = sarif["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "qlint");
  std::set<std::string> rule_ids;
  for (const auto& rule : run["tool"]["driver"]["rules"]) {
    rule_ids.insert(rule["id"].get<std::string>());
    for (const char* key : {"shortDescription", "fullDescription", "help"})
      EXPECT_FALSE(rule[key]["text"].get<std::string>().empty()) << rule["id"] << key;
  }
  ASSERT_EQ(run["results"].size(), 3u);
  for (const auto& result : run["results"]) {
    EXPECT_TRUE(rule_ids.count(result["ruleId"].get<std::string>()));
    EXPECT_EQ(run["tool"]["driver"]["rules"][result["ruleIndex"].get<int>()]["id"], result["ruleId"]);
    EXPECT_FALSE(result["message"]["text"].get<std::string>().empty());
    const json& loc = result["locations"][0]["physicalLocation"];
    EXPECT_EQ(loc["artifactLocation"]["uri"], "examples/seed/s1_eq_one.py");  // repository-relative
    EXPECT_GE(loc["region"]["startLine"].get<int>(), 15);
    EXPECT_TRUE(loc["region"].contains("endColumn"));
    EXPECT_TRUE(std::regex_match(result["partialFingerprints"]["primaryLocationLineHash"].get<std::string>(),
                                 std::regex("[0-9a-f]{16}:1")));
  }
  // The bool-arith fix is the whole Python change, as --diff shows it: the new stub declared in
  // __init__ (an insertion before line 12 of examples/seed/s1_eq_one.py), and the operand.
  const json& bool_arith = run["results"][2];
  EXPECT_EQ(bool_arith["ruleId"], "bool-arith");
  ASSERT_TRUE(bool_arith.contains("fixes"));
  const json& change = bool_arith["fixes"][0]["artifactChanges"][0];
  EXPECT_EQ(change["artifactLocation"]["uri"], "examples/seed/s1_eq_one.py");
  ASSERT_EQ(change["replacements"].size(), 2u);
  const json& declaration = change["replacements"][0];
  EXPECT_EQ(declaration["deletedRegion"],
            json::parse(R"({"startLine": 12, "startColumn": 1, "endLine": 12, "endColumn": 1})"));
  EXPECT_EQ(declaration["insertedContent"]["text"], "        self.mask_quant = QuantStub()\n");
  const json& operand = change["replacements"][1];
  EXPECT_EQ(operand["deletedRegion"],
            json::parse(R"({"startLine": 17, "startColumn": 19, "endLine": 17, "endColumn": 38})"));
  EXPECT_EQ(operand["insertedContent"]["text"], "self.mask_quant(mask[:, :, :, None].to(torch.float))");
  // The reroot fix of eq-nonzero-const needs a float alias line before the stub call.
  const json& eq = run["results"][1];
  EXPECT_EQ(eq["ruleId"], "eq-nonzero-const");
  ASSERT_TRUE(eq.contains("fixes"));
  EXPECT_EQ(eq["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"],
            "        x_float = x\n");
}

// A model that cannot be read must not vanish from machine-read output: SARIF reports it as a
// failed invocation, GitHub as an error annotation; the other models are still checked.
TEST(Formats, UnreadableModelsAreReportedInSarifAndGithubOutput) {
  std::string unreadable = build_path("tests/models/state_dict.pt");
  auto sarif_run = run_qlint({"check", "--format", "sarif", unreadable, example_model("seed/s1_eq_one")});
  EXPECT_EQ(sarif_run.exit_code, 2);
  json sarif = json::parse(sarif_run.out);
  const json& run = sarif["runs"][0];
  EXPECT_EQ(run["results"].size(), 3u);
  const json& invocation = run["invocations"][0];
  EXPECT_EQ(invocation["executionSuccessful"], false);
  ASSERT_EQ(invocation["toolExecutionNotifications"].size(), 1u);
  const json& notification = invocation["toolExecutionNotifications"][0];
  EXPECT_EQ(notification["level"], "error");
  EXPECT_NE(notification["message"]["text"].get<std::string>().find("state_dict"), std::string::npos);
  EXPECT_NE(notification["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].get<std::string>().find(
                "state_dict.pt"),
            std::string::npos);

  auto github_run = run_qlint({"check", "--format", "github", unreadable, example_model("seed/s1_eq_one")});
  EXPECT_EQ(github_run.exit_code, 2);
  EXPECT_TRUE(
      std::regex_search(github_run.out, std::regex("^::error file=[^,]*state_dict\\.pt,title=qlint::.*state_dict")))
      << github_run.out;
  EXPECT_NE(github_run.out.find("title=eq-nonzero-const::"), std::string::npos) << github_run.out;
}

// qlint's own columns count bytes, as TorchScript's positions do; SARIF declares
// utf16CodeUnits. Line 18 of tests/e2e/non_ascii_model.py has 掩码 (3 bytes, 1 unit each) and
// 🙂 (4 bytes, 2 units) before `x[:, 0] == 1`: byte column 38 is UTF-16 column 32.
TEST(Formats, SarifColumnsCountUtf16CodeUnits) {
  std::string model = build_path("tests/models/non_ascii.pt");
  auto concise = run_qlint({"check", "--format", "concise", model});
  EXPECT_NE(concise.out.find("tests/e2e/non_ascii_model.py:18:38: warning: `==` compares"), std::string::npos)
      << concise.out;
  auto r = run_qlint({"check", "--format", "sarif", model});
  json sarif = json::parse(r.out);
  ASSERT_EQ(sarif["runs"][0]["columnKind"], "utf16CodeUnits");
  bool found = false;
  for (const auto& result : sarif["runs"][0]["results"]) {
    if (result["ruleId"] != "eq-nonzero-const") continue;
    found = true;
    const json& region = result["locations"][0]["physicalLocation"]["region"];
    EXPECT_EQ(region["startLine"], 18);
    EXPECT_EQ(region["startColumn"], 32);
    EXPECT_EQ(region["endColumn"], 44);  // `x[:, 0] == 1` is 12 units
  }
  EXPECT_TRUE(found) << r.out;
}

TEST(Formats, SarifInvocationSucceedsWhenEveryModelIsRead) {
  auto r = run_qlint({"check", "--format", "sarif", example_model("clean/compare_zero")});
  EXPECT_EQ(r.exit_code, 0);
  json sarif = json::parse(r.out);
  const json& invocation = sarif["runs"][0]["invocations"][0];
  EXPECT_EQ(invocation["executionSuccessful"], true);
  EXPECT_TRUE(invocation["toolExecutionNotifications"].empty());
}

}  // namespace
}  // namespace qlint
