// End-to-end: the real qlint binary on models exported by real PyTorch.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "analysis/facts.h"
#include "expectations.h"
#include "ir/text.h"
#include "rules/registry.h"
#include "run.h"
#include "temp_dir.h"

namespace qlint {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::build_path;
using testing::example_input;
using testing::example_model;
using testing::Expected;
using testing::location_of;
using testing::run_qlint;
using testing::run_qlint_with_env;

// qlint shows paths under the working directory (the source tree here) relative to it.
std::string shown_path(const std::string& file) {
  fs::path rel = fs::path(file).lexically_relative(QLINT_SOURCE_DIR);
  return rel.empty() || *rel.begin() == ".." ? file : rel.string();
}

// ---- Every example model, checked against tests/e2e/example_expectations.txt -------------

std::map<std::string, std::vector<Expected>> read_expectations() {
  return testing::read_expectations("example_expectations.txt");
}

TEST(Examples, EveryExampleModelIsListed) {
  auto expectations = read_expectations();
  size_t models = 0;
  for (const char* set : {"seed", "qat", "rules", "clean", "sim", "torchvision", "flows", "zoo"}) {
    for (const auto& entry : fs::directory_iterator(build_path(std::string("examples/") + set))) {
      if (entry.path().extension() != ".pt") continue;
      ++models;
      EXPECT_TRUE(expectations.count(std::string(set) + "/" + entry.path().stem().string()))
          << entry.path() << " has no line in example_expectations.txt";
    }
  }
  EXPECT_EQ(models, expectations.size());
}

TEST(Examples, DiagnosticsMatchExactly) {
  for (const auto& [model, expected] : read_expectations()) {
    SCOPED_TRACE(model);
    auto r = run_qlint({"check", "--format", "json", example_model(model)});
    ASSERT_EQ(r.exit_code, expected.empty() ? 0 : 1) << r.err;
    json doc = json::parse(r.out);
    std::multiset<std::pair<std::string, std::string>> want, got;
    for (const auto& e : expected) want.insert({e.rule, e.location});
    for (const auto& d : doc["diagnostics"]) got.insert({d["rule"], location_of(d)});
    EXPECT_EQ(got, want);
  }
}

// The default QAT qconfig's FusedMovingAvgObsFakeQuantize keeps its scale in module state, not
// in its observer flags (which read as "scale 1" before). PyTorch 1.13 on the example:
// scale 0.0545516, zero point 62, 1.0 fake-quantizes to 0.9819288 (examples/flows docstring).
// A converted model's kernel is not called a QuantStub, and gets advice for converted models.
TEST(Examples, QuantizationFlowsStateTheirOwnParameters) {
  auto messages = [](const std::string& model) {
    std::string all;
    const json doc = json::parse(run_qlint({"check", "--format", "json", example_model(model)}).out);
    for (const auto& d : doc["diagnostics"]) all += d["message"].get<std::string>() + "\n";
    return all;
  };
  std::string fused = messages("flows/eager_qat_default_traced");
  EXPECT_NE(fused.find("with 1 (scale 0.054552): 1 becomes 0.98193 after quantization"), std::string::npos) << fused;
  EXPECT_EQ(fused.find("scale 1 "), std::string::npos) << fused;
  std::string converted = messages("flows/fx_converted_eq_one");
  EXPECT_NE(converted.find("(scale 0.0070709): 1 becomes 0.997"), std::string::npos) << converted;
  EXPECT_NE(converted.find("compute the comparison before the model quantizes the tensor"), std::string::npos)
      << converted;
  EXPECT_EQ(converted.find("QuantStub"), std::string::npos) << converted;
  // No internal IR names (`%x.1`) in any message of the flows and zoo.
  for (const char* model : {"flows/fx_qat_prepared_traced", "flows/fx_converted_eq_one", "zoo/type_as_mask",
                            "zoo/dict_plumbing", "zoo/sequential_heads"})
    EXPECT_EQ(messages(model).find('%'), std::string::npos) << model << ": " << messages(model);
}

TEST(Examples, TracedQatModelsStateTheCalibratedScale) {
  json s1 = json::parse(run_qlint({"check", "--format", "json", example_model("qat/qat_s1_eq_one")}).out);
  std::string all;
  for (const auto& d : s1["diagnostics"]) all += d["message"].get<std::string>() + "\n";
  // PyTorch's MinMaxObserver over the seed input: 60.5 / 32767.5 = 0.0018463 (SPEC.md S1).
  EXPECT_NE(all.find("with 1 (scale 0.0018463): 1 becomes 1.0007 after quantization"), std::string::npos) << all;
  json s4 = json::parse(run_qlint({"check", "--format", "json", example_model("qat/qat_s4_shared_scale")}).out);
  ASSERT_EQ(s4["diagnostics"].size(), 1u);
  // 70000 / 32767.5 = 2.1363 and round(1 / 2.1363) = 0 (SPEC.md S4).
  EXPECT_NE(
      s4["diagnostics"][0]["message"].get<std::string>().find("at its scale 2.1363 the mask value 1.0 quantizes to 0"),
      std::string::npos)
      << s4.dump(2);
  // A padding mask through the data's stub, only tested against 0 (`mask != 0`, cast back to
  // bool): at the stated scale its 1s stay told from 0, and the message says what would break
  // that instead of presenting 1.0011 as the failure (public round 18's transformer).
  json cast_back =
      json::parse(run_qlint({"check", "--format", "json", example_model("qat/qat_padding_mask_cast_back")}).out);
  std::string messages;
  for (const auto& d : cast_back["diagnostics"]) messages += d["message"].get<std::string>() + "\n";
  EXPECT_NE(messages.find("quantizes to 1.0011, still told from 0 by the test against 0; data whose range makes the "
                          "step 2 or more would round the 1s to 0"),
            std::string::npos)
      << messages;
}

TEST(Examples, TorchvisionSilenceIsNotBlindness) {
  // Zero findings on torchvision's models only mean something if the analysis follows the
  // QuantStub's output through them: the classifier's output must be in the quantized domain.
  for (const char* model : {"resnet18", "mobilenet_v2", "mobilenet_v3_large", "shufflenet_v2_x0_5", "googlenet"}) {
    auto r = run_qlint({"dump", "--facts", example_model(std::string("torchvision/") + model)});
    ASSERT_EQ(r.exit_code, 0) << model << r.err;
    std::istringstream lines(r.out);
    std::string line;
    bool classifier_quantized = false;
    while (std::getline(lines, line))
      if (line.find("aten::linear(") != std::string::npos &&
          line.find("quant=self.quant in-domain") != std::string::npos)
        classifier_quantized = true;
    EXPECT_TRUE(classifier_quantized) << model;
  }
}

// A traced nn.MultiheadAttention builds its additive -inf mask and `baddbmm`s it inside
// torch/nn/functional.py, called from the user's `self.attn(...)` line (examples/qat/
// qat_mha_padding_mask.py). The trace's stack says so, whether or not qlint may read the model's
// source: run from a directory where it may not, public round 13's DETR got two findings there and
// none where it could read the source (the line's text was all that told).
TEST(Examples, TracedLibraryCodeIsLibraryCodeWhereverQlintRuns) {
  const std::string model = example_model("qat/qat_mha_padding_mask");
  for (const std::string dir : {std::string("."), fs::temp_directory_path().string()}) {
    SCOPED_TRACE(dir);
    auto r = qlint::testing::run_program(
        {"sh", "-c",
         "cd '" + dir + "' && '" + build_path("qlint") + "' check --isolated '" + fs::absolute(model).string() + "'"});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("Found 0 problems"), std::string::npos) << r.out;
  }
}

TEST(Examples, ToolchainStubClassesAreConfigurable) {
  std::string model = example_model("rules/toolchain_stub");
  for (const char* name : {"ToolchainQuantStub", "qlint_example_toolchain_stub.ToolchainQuantStub"}) {
    auto r = run_qlint({"check", "--format", "json", "--quant-stub-class", name, model});
    EXPECT_EQ(r.exit_code, 1) << name << r.err;
    json doc = json::parse(r.out);
    ASSERT_EQ(doc["diagnostics"].size(), 1u) << name;
    EXPECT_EQ(location_of(doc["diagnostics"][0]), "examples/rules/toolchain_stub.py:21:17-21:29");
  }
  // A name must match whole dotted components: "QuantStub" is not "ToolchainQuantStub".
  EXPECT_EQ(run_qlint({"check", "--quant-stub-class", "QuantStub", model}).exit_code, 0);
}

// ---- Text output -----------------------------------------------------------------------

// The lines of the text output from the diagnostic header matching `header` on.
std::vector<std::string> lines_from(const std::string& out, const std::regex& header) {
  std::istringstream in(out);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line))
    if (!lines.empty() || std::regex_match(line, header)) lines.push_back(line);
  return lines;
}

TEST(TextOutput, CompilerFormatWithSourceLineAndMarker) {
  auto r = run_qlint({"check", example_model("s1_eq_one")});
  EXPECT_EQ(r.exit_code, 1);
  auto lines = lines_from(r.out, std::regex(R"(examples/seed/s1_eq_one\.py:16:16: warning: .+ \[eq-nonzero-const\])"));
  ASSERT_GE(lines.size(), 3u) << r.out;
  EXPECT_EQ(lines[1], " 16 |         mask = x[:, :, :, -1] == 1");
  EXPECT_EQ(lines[2], "    |                ^~~~~~~~~~~~~~~~~~~");
  EXPECT_NE(r.out.find("Found 3 problems in 1 model."), std::string::npos) << r.out;
}

TEST(TextOutput, MessagesSayWhatBreaksAndHowToFix) {
  auto r = run_qlint({"check", "--format", "json", example_model("s1_eq_one")});
  json doc = json::parse(r.out);
  ASSERT_EQ(doc["diagnostics"].size(), 3u);
  std::string eq = doc["diagnostics"][1]["message"];
  EXPECT_NE(eq.find("`self.quant`"), std::string::npos) << eq;
  EXPECT_NE(eq.find("1.0007"), std::string::npos) << eq;
  EXPECT_NE(eq.find("before the QuantStub"), std::string::npos) << eq;
  std::string mul = doc["diagnostics"][2]["message"];
  EXPECT_NE(mul.find("CPU"), std::string::npos) << mul;
  EXPECT_NE(mul.find(".to(torch.float)"), std::string::npos) << mul;
}

TEST(TextOutput, SourceLineComesFromDebugInfoWhenThePyFileIsGone) {
  std::string model = build_path("tests/models/gone_model.pt");
  auto r = run_qlint({"check", model});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  // The recorded file was deleted after export; the line text is still shown.
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(gone_model\.py:16:16: warning: .*\[eq-nonzero-const\])")))
      << r.out;
  EXPECT_NE(r.out.find(" 16 |         mask = x[:, :, :, -1] == 1"), std::string::npos) << r.out;
}

TEST(TextOutput, NoColourWhenNotATerminal) {
  auto r = run_qlint({"check", example_model("s1_eq_one")});
  EXPECT_EQ(r.out.find('\033'), std::string::npos);
}

// ---- JSON output -----------------------------------------------------------------------

TEST(JsonOutput, HasVersionAndEveryDocumentedField) {
  auto r = run_qlint({"check", "--format", "json", example_model("s1_in_child")});
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["version"], 1);
  EXPECT_EQ(doc["tool"]["name"], "qlint");
  ASSERT_EQ(doc["diagnostics"].size(), 3u);
  const json& d = doc["diagnostics"][0];
  for (const char* key : {"rule", "severity", "message", "file", "line", "column", "end_line", "end_column", "model",
                          "method", "module", "node", "suggestions"})
    EXPECT_TRUE(d.contains(key)) << key;
  // A comparison in a child module reads the parent's float value through an extra parameter.
  ASSERT_EQ(d["suggestions"].size(), 1u);
  EXPECT_EQ(d["suggestions"][0]["applicability"], "safe");
  EXPECT_EQ(d["suggestions"][0]["edits"].size(), 4u) << d["suggestions"][0].dump(2);
  EXPECT_EQ(d["rule"], "eq-nonzero-const");
  EXPECT_EQ(d["severity"], "warning");
  EXPECT_EQ(d["method"], "forward");
  EXPECT_EQ(d["module"], "head");  // reported inside the child module
  EXPECT_EQ(d["node"], "aten::eq");
  EXPECT_EQ(d["model"], shown_path(example_model("s1_in_child")));
  EXPECT_TRUE(doc["errors"].empty());
}

// Each fix's Python edits, as --diff shows them: S1's bool-arith fix declares the new stub in
// __init__ (before line 12) and quantizes the operand on line 17 (examples/seed/s1_eq_one.py).
TEST(JsonOutput, SuggestionsCarryThePythonEdits) {
  auto r = run_qlint({"check", "--format", "json", example_model("s1_eq_one")});
  json doc = json::parse(r.out);
  ASSERT_EQ(doc["diagnostics"].size(), 3u);
  const json& bool_arith = doc["diagnostics"][2];
  ASSERT_EQ(bool_arith["rule"], "bool-arith");
  ASSERT_EQ(bool_arith["suggestions"].size(), 1u);
  const json& suggestion = bool_arith["suggestions"][0];
  EXPECT_EQ(suggestion["applicability"], "safe");
  json expected = json::parse(R"json([
    {"file": "examples/seed/s1_eq_one.py", "line": 12, "column": 1, "end_line": 12, "end_column": 1,
     "text": "        self.mask_quant = QuantStub()\n"},
    {"file": "examples/seed/s1_eq_one.py", "line": 17, "column": 19, "end_line": 17, "end_column": 38,
     "text": "self.mask_quant(mask[:, :, :, None].to(torch.float))"}])json");
  EXPECT_EQ(suggestion["edits"], expected);
}

// ---- Several files, the default command, exit codes -------------------------------------

TEST(Cli, SeveralFilesAndThePlainForm) {
  auto r = run_qlint({example_model("s1_eq_one"), example_model("s6_separate_stubs"), "--format", "json"});
  EXPECT_EQ(r.exit_code, 1);
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["models"].size(), 2u);
  EXPECT_EQ(doc["diagnostics"].size(), 3u);  // all from s1_eq_one
}

TEST(Cli, CleanModelExitsZero) {
  auto r = run_qlint({"check", example_model("s6_separate_stubs")});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "Found 0 problems in 1 model.\n");
  EXPECT_EQ(r.err, "");
}

TEST(Cli, UsageErrorsExitTwo) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"check", "--format", "yaml", example_model("s1_eq_one")},
                                             {"--no-such-flag"},
                                             {"explain", "no-such-rule"}}) {
    auto r = run_qlint(args);
    EXPECT_EQ(r.exit_code, 2) << args[0];
    EXPECT_NE(r.err.find("qlint: error: "), std::string::npos) << r.err;
  }
}

TEST(Cli, RulesAndExplain) {
  auto list = run_qlint({"rules"});
  EXPECT_EQ(list.exit_code, 0);
  for (const char* id : {"bool-arith", "eq-nonzero-const", "reused-stub", "shared-stub-mask", "unquantized-operand"}) {
    EXPECT_NE(list.out.find(id), std::string::npos) << id;
    auto explain = run_qlint({"explain", id});
    EXPECT_EQ(explain.exit_code, 0);
    for (const char* heading : {"What it finds", "Why it breaks", "Example", "Fix", "Fix safety"})
      EXPECT_NE(explain.out.find(heading), std::string::npos) << id << ": " << heading;
  }
}

TEST(Docs, RulePagesAreCurrent) {
  // docs/rules is generated from the rules' own documentation; a rule changed without
  // regenerating (`build/qlint docs docs/rules`) fails here.
  fs::path dir = fs::temp_directory_path() / ("qlint-docs-" + std::to_string(::getpid()));
  auto r = run_qlint({"docs", dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t pages = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    ++pages;
    fs::path committed = fs::path(QLINT_SOURCE_DIR) / "docs" / "rules" / entry.path().filename();
    std::ifstream a(entry.path()), b(committed);
    std::string generated((std::istreambuf_iterator<char>(a)), {}), in_repo((std::istreambuf_iterator<char>(b)), {});
    EXPECT_EQ(generated, in_repo) << committed << " is stale: run build/qlint docs docs/rules";
  }
  EXPECT_EQ(pages, rules::all_rules().size() + 1);  // a page per rule and the index
  fs::remove_all(dir);
}

// ---- Bad input: one line naming the file and the problem, exit 2, no crash ---------------

// Each command opens a TorchScript archive once: the probe's safety checks, PyTorchStreamReader
// and torch::jit::load read through one open descriptor (ir/torchscript/archive_file.h), so a
// file replaced meanwhile is not what LibTorch loads, and `check --input`, `--fix` and `sim`
// load the module once. Counted by a library preloaded into qlint that sees every open of the file,
// LibTorch's and libstdc++'s included (`check` opened it 5 times before).
class ArchiveReads : public testing::TempDirTest {
 protected:
  int opens_of(const std::string& archive, const std::vector<std::string>& args) {
    const std::string log = tmp("opens.log");
    std::ofstream{log};
    auto r = run_qlint_with_env(
        {std::string("LD_PRELOAD=") + QLINT_COUNT_OPENS, "QLINT_TEST_WATCH=" + archive, "QLINT_TEST_OPENS=" + log},
        args);
    EXPECT_LE(r.exit_code, 1) << r.err;
    std::ifstream in(log);
    int opens = 0;
    for (std::string line; std::getline(in, line);) ++opens;
    return opens;
  }
};

TEST_F(ArchiveReads, EachCommandOpensTheArchiveOnce) {
  fs::copy_file(example_model("seed/s1_eq_one"), tmp("model.pt"));
  const std::string model = tmp("model.pt"), input = example_input("seed/s1_eq_one");
  EXPECT_EQ(opens_of(model, {"check", "--isolated", model}), 1);
  EXPECT_EQ(opens_of(model, {"check", "--isolated", "--input", input, model}), 1);
  EXPECT_EQ(opens_of(model, {"sim", "--input", input, model}), 1);
  EXPECT_EQ(opens_of(model, {"dump", model}), 1);
  EXPECT_EQ(opens_of(model, {"check", "--isolated", "--fix", "-o", tmp("fixed.pt"), "--input", input, model}), 1);
  // The count sees opens through libstdc++'s streams too: the input file is read with one.
  EXPECT_GE(opens_of(input, {"sim", "--input", input, model}), 1);
}

class BadInput : public testing::TempDirTest {
 protected:
  std::string write(const std::string& name, const std::string& bytes) {
    fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }

  void expect_one_line_error(const std::string& file, const std::string& reason) {
    SCOPED_TRACE(file);
    auto r = run_qlint({"check", file});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("qlint: error: " + shown_path(file) + ": ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(reason), std::string::npos) << r.err;
    for (const char* leak : {"terminate", "Exception raised from", "c10::", "what()", "frame #"})
      EXPECT_EQ(r.err.find(leak), std::string::npos) << r.err;
  }
};

TEST_F(BadInput, MissingFile) { expect_one_line_error((dir_ / "nope.pt").string(), "no such file"); }

TEST_F(BadInput, DirectoryWithoutModels) {
  expect_one_line_error(dir_.string(),
                        "is a directory with no models (*.pt, *.pth, *.ptl, *.jit, *.torchscript, *.fx.json)");
}

// Exported with a newer PyTorch (tests/e2e/failing_forward_model.py renames an aten op in the
// archive's code): the line says so instead of "load the library that defines it".
TEST_F(BadInput, ArchiveFromANewerPyTorch) {
  expect_one_line_error(build_path("tests/models/newer_pytorch.pt"),
                        "was saved by a newer PyTorch: LibTorch 1.13.0 lacks aten::relu_from_the_future");
}

// TorchScript archives also come as *.jit and *.torchscript (LibTorch's examples, mobile apps).
TEST_F(BadInput, DirectorySearchFindsJitAndTorchscriptFiles) {
  fs::copy_file(example_model("seed/s1_eq_one"), dir_ / "model.jit");
  fs::copy_file(example_model("seed/s6_separate_stubs"), dir_ / "clean.torchscript");
  auto r = run_qlint({"check", "--format", "json", dir_.string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  json doc = json::parse(r.out);
  std::set<std::string> models;
  for (const auto& m : doc["models"]) models.insert(fs::path(m.get<std::string>()).filename().string());
  EXPECT_EQ(models, (std::set<std::string>{"model.jit", "clean.torchscript"})) << r.out;
}

TEST_F(BadInput, EmptyFile) { expect_one_line_error(write("empty.pt", ""), "is empty"); }

TEST_F(BadInput, RandomBytes) {
  std::mt19937 rng(42);
  std::string bytes(4096, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  expect_one_line_error(write("random.pt", bytes), "not a zip file");
}

TEST_F(BadInput, TruncatedArchive) {
  std::ifstream in(example_model("s1_eq_one"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 1000u);
  expect_one_line_error(write("truncated.pt", bytes.substr(0, bytes.size() / 2)), "truncated or corrupt");
}

// The code declares an attribute (`threshold : float`) the pickled module lacks: LibTorch's
// deserializer fails in a map's at() ("Argument passed to at() was not in the map."), which
// says nothing to the user (issue #27).
TEST_F(BadInput, CodeDeclaringAnAttributeTheDataLacks) {
  const std::string archive = (dir_ / "missing_attribute.pt").string();
  const char* script =
      "import sys, zipfile\n"
      "src, dst = zipfile.ZipFile(sys.argv[1]), zipfile.ZipFile(sys.argv[2], 'w')\n"
      "for info in src.infolist():\n"
      "    data = src.read(info.filename)\n"
      "    if info.filename.endswith('qlint_example_s1_eq_one.py'):\n"
      "        data = data.replace(b'  training : bool\\n', b'  training : bool\\n  threshold : float\\n', 1)\n"
      "    dst.writestr(info, data)\n"
      "dst.close()\n";
  auto made = testing::run_program({QLINT_PYTHON, "-c", script, example_model("seed/s1_eq_one"), archive});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  expect_one_line_error(archive, "its code and its data disagree");
  EXPECT_EQ(run_qlint({"check", archive}).err.find("at()"), std::string::npos);
}

TEST_F(BadInput, PickledPythonModuleSaysHowToExport) {
  expect_one_line_error(build_path("tests/models/pickled_module.pt"), "torch.jit.script(model).save");
  auto r = run_qlint({"check", build_path("tests/models/pickled_module.pt")});
  EXPECT_NE(r.err.find("torch.save() pickle of the Python object __main__.Net"), std::string::npos) << r.err;
}

TEST_F(BadInput, StateDict) { expect_one_line_error(build_path("tests/models/state_dict.pt"), "state_dict"); }

TEST_F(BadInput, SavedTensor) {
  expect_one_line_error(build_path("tests/models/tensor.pt"), "a tensor saved with torch.save");
}

TEST_F(BadInput, LegacySaveFormat) {
  expect_one_line_error(build_path("tests/models/legacy_save.pt"), "legacy (pre-1.6) torch.save");
}

// FX exports (*.json): the JSON and the qlint-fx document are checked before any node is read.
TEST_F(BadInput, FxExportThatIsNotJson) {
  expect_one_line_error(write("model.fx.json", "PK\x03\x04 not json"), "is not valid JSON: parse error at line 1");
}

TEST_F(BadInput, JsonThatIsNotAnFxExport) {
  expect_one_line_error(write("config.json", R"({"name": "something else"})"),
                        "is JSON but not an FX export from qlint-fx-export (no \"format\": \"qlint-fx\")");
}

TEST_F(BadInput, FxExportFromANewerQlint) {
  expect_one_line_error(write("new.fx.json", R"({"format": "qlint-fx", "version": 99, "modules": [], "nodes": []})"),
                        "is an FX export of format version 99, newer than this qlint reads (1); update qlint");
}

TEST_F(BadInput, FxExportWithADanglingNodeReference) {
  expect_one_line_error(
      write("dangling.fx.json", R"({"format": "qlint-fx", "version": 1, "modules": [{"path": "", "class": "M"}],
             "nodes": [{"name": "y", "op": "call_function", "target": "torch.relu", "args": [{"node": "x"}]}]})"),
      "is a malformed FX export: a node uses `x` before it is defined");
}

TEST_F(BadInput, FxExportWithWrongTypes) {
  expect_one_line_error(write("types.fx.json", R"({"format": "qlint-fx", "version": 1, "modules": 3, "nodes": []})"),
                        "is a malformed FX export: it needs a \"modules\" array");
  expect_one_line_error(
      write(
          "lines.fx.json",
          R"({"format": "qlint-fx", "version": 1, "modules": [], "nodes": [], "source_lines": {"a.py": {"x": "y"}}})"),
      "is a malformed FX export");
}

TEST_F(BadInput, GoodAndBadTogetherStillReportsTheGoodOne) {
  auto r = run_qlint({"check", example_model("s1_eq_one"), (dir_ / "nope.pt").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("[eq-nonzero-const]"), std::string::npos);
  EXPECT_NE(r.err.find("no such file"), std::string::npos);
}

// ---- dump: the IR text is faithful enough to lint ----------------------------------------

TEST(Dump, PrintsIrThatParsesAndLintsLikeTheArchive) {
  for (const char* stem : {"s1_eq_one", "s1_in_child", "s2_logical_not", "s6_separate_stubs"}) {
    SCOPED_TRACE(stem);
    auto dump = run_qlint({"dump", example_model(stem)});
    ASSERT_EQ(dump.exit_code, 0) << dump.err;
    ir::ParsedModel parsed = ir::parse_model(dump.out);
    auto facts = analysis::Facts::compute(parsed.model);
    std::multiset<std::string> from_dump, from_binary;
    for (const auto& d : rules::run_all(facts))
      from_dump.insert(d.rule + "@" + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.column));
    json doc = json::parse(run_qlint({"check", "--format", "json", example_model(stem)}).out);
    for (const auto& d : doc["diagnostics"])
      from_binary.insert(d["rule"].get<std::string>() + "@" + std::to_string(d["line"].get<int>()) + ":" +
                         std::to_string(d["column"].get<int>()));
    EXPECT_EQ(from_dump, from_binary);
    EXPECT_NE(dump.out.find("prim::CallMethod[name=\"forward\", callee=\"quant.forward\"]"), std::string::npos);
  }
}

}  // namespace
}  // namespace qlint
