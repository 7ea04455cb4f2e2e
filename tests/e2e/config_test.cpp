// End-to-end: configuration files (.qlint.toml, pyproject.toml [tool.qlint]).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run.h"
#include "temp_dir.h"

namespace qlint {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::build_path;
using testing::example_model;
using testing::run_qlint_configured;

class Config : public testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    fs::create_directories(dir_ / "models" / "legacy");
    fs::copy_file(example_model("seed/s1_eq_one"), dir_ / "models" / "s1.pt");
    fs::copy_file(example_model("seed/s1_eq_one"), dir_ / "models" / "legacy" / "s1.pt");
  }

  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  std::string path(const std::string& name) const { return tmp(name); }

  std::vector<std::string> findings(const std::vector<std::string>& args) {
    std::vector<std::string> all = {"check", "--format", "json"};
    all.insert(all.end(), args.begin(), args.end());
    auto r = run_qlint_configured(all);
    EXPECT_NE(r.exit_code, 2) << r.err;
    std::vector<std::string> out;
    json doc = json::parse(r.out);  // kept alive: the loop must not iterate a destroyed temporary
    for (const auto& d : doc["diagnostics"])
      out.push_back(d["rule"].get<std::string>() + ":" + d["severity"].get<std::string>());
    return out;
  }
};

TEST_F(Config, PyprojectSelectsIgnoresAndSetsSeverity) {
  write("pyproject.toml",
        "[project]\nname = \"x\"\n\n[tool.qlint]\nignore = [\"shared-stub-mask\"]\n"
        "severity = { \"bool-arith\" = \"error\" }\n");
  EXPECT_EQ(findings({path("models/s1.pt")}),
            (std::vector<std::string>{"eq-nonzero-const:warning", "bool-arith:error"}));
  // The command line wins over the file: --select replaces its selection.
  EXPECT_EQ(findings({"--select", "shared-stub-mask", path("models/s1.pt")}), std::vector<std::string>{});
  EXPECT_EQ(findings({"--isolated", path("models/s1.pt")}).size(), 3u);
}

TEST_F(Config, QlintTomlWinsOverPyprojectAndIsFoundUpward) {
  write("pyproject.toml", "[tool.qlint]\nselect = [\"bool-arith\"]\n");
  write("models/.qlint.toml", "select = [\"eq-nonzero-const\"]\n");
  EXPECT_EQ(findings({path("models/legacy/s1.pt")}), std::vector<std::string>{"eq-nonzero-const:warning"});
}

TEST_F(Config, PerFileIgnoresMatchModelsAndSources) {
  write(".qlint.toml",
        "[per-file-ignores]\n\"models/legacy/*\" = [\"bool-arith\", \"eq-nonzero-const\"]\n"
        "\"*s1_eq_one.py\" = [\"shared-stub-mask\"]\n");
  EXPECT_EQ(findings({path("models/legacy/s1.pt")}), std::vector<std::string>{});
  EXPECT_EQ(findings({path("models/s1.pt")}),
            (std::vector<std::string>{"eq-nonzero-const:warning", "bool-arith:warning"}));
}

TEST_F(Config, StubClassesAndBits) {
  fs::copy_file(example_model("rules/toolchain_stub"), dir_ / "models" / "toolchain.pt");
  write(".qlint.toml", "quant-stub-classes = [\"ToolchainQuantStub\"]\nbits = 8\n");
  EXPECT_EQ(findings({path("models/toolchain.pt")}), std::vector<std::string>{"eq-nonzero-const:warning"});
  auto r = run_qlint_configured(
      {"check", "--format", "json", path("models/s1.pt"), "--input", build_path("examples/inputs/seed/s1_eq_one.pt")});
  json doc = json::parse(r.out);
  bool int8 = false;
  for (const auto& d : doc["diagnostics"])
    for (const auto& n : d["notes"])
      int8 = int8 || n.get<std::string>().find("(int8 simulation on 1 input batch)") != std::string::npos;
  EXPECT_TRUE(int8) << doc.dump(2);
}

TEST_F(Config, MistakesAreOneLineErrors) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"selekt = [\"bool-arith\"]\n", "unknown key `selekt`"},
      {"select = \"bool-arith\"\n", "`select` must be a list of strings"},
      {"select = [\"no-such-rule\"]\n", "unknown rule 'no-such-rule'"},
      {"bits = 12\n", "`bits` must be 16 or 8"},
      {"[severity]\nbool-arith = \"fatal\"\n", "severity of `bool-arith` must be"},
      {"select = [\n", "line "},
      {"export = [\"make\"]\n", "`export` must be a shell command"},
      {"models = \"build\"\n", "`models` must be a list of strings"},
  };
  for (const auto& [text, reason] : cases) {
    write(".qlint.toml", text);
    auto r = run_qlint_configured({"check", path("models/s1.pt")});
    EXPECT_EQ(r.exit_code, 2) << text;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(path(".qlint.toml") + ": "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(reason), std::string::npos) << r.err;
  }
  auto missing = run_qlint_configured({"check", "--config", path("nope.toml"), path("models/s1.pt")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no such config file"), std::string::npos) << missing.err;
}

// The server's keys (docs/server.md) are part of the configuration, and `check` reads a file
// that has them as any other: they change nothing it does.
TEST_F(Config, ServerKeysLeaveCheckAlone) {
  write(".qlint.toml",
        "export = \"false\"\ninputs = [\"nope.pt\"]\nmodels = [\"models\"]\nselect = [\"bool-arith\"]\n");
  EXPECT_EQ(findings({path("models/s1.pt")}), std::vector<std::string>{"bool-arith:warning"});
}

TEST_F(Config, ExplicitConfigFile) {
  write("elsewhere.toml", "select = [\"bool-arith\"]\n");
  EXPECT_EQ(findings({"--config", path("elsewhere.toml"), path("models/s1.pt")}),
            std::vector<std::string>{"bool-arith:warning"});
}

}  // namespace
}  // namespace qlint
