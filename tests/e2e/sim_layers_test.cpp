// End-to-end: `qlint sim --layers` (the error of every quant point and module call against
// float) against PyTorch's own per-module figures (tests/sim/reference.py layers), and the
// quant points `qlint sim` lists for converted models against PyTorch's q_scale() and
// q_zero_point() of the same modules' outputs (tests/sim/reference.py converted-scales).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "run.h"
#include "temp_dir.h"

namespace qlint {
namespace {

using nlohmann::json;
using testing::build_path;
using testing::example_input;
using testing::example_model;
using testing::example_source;
using testing::run_qlint;
using testing::run_reference;

json sim_json(const std::vector<std::string>& args) {
  std::vector<std::string> all = {"sim", "--format", "json"};
  all.insert(all.end(), args.begin(), args.end());
  auto r = run_qlint(all);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? json::parse(r.out) : json::object();
}

json layers_of(const std::string& model, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {example_model(model), "--input", example_input(model), "--layers"};
  args.insert(args.end(), extra.begin(), extra.end());
  return sim_json(args)["layers"];
}

json reference_json(const std::vector<std::string>& args) {
  auto r = run_reference(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? json::parse(r.out) : json::array();
}

double db(const json& v) {
  if (v.is_string()) return v == "inf" ? INFINITY : -INFINITY;
  return v.get<double>();
}

void expect_db_near(const json& actual, const json& expected, const std::string& what) {
  double a = db(actual), e = db(expected);
  if (std::isinf(e)) {
    EXPECT_EQ(a, e) << what;
    return;
  }
  EXPECT_NEAR(a, e, 1e-6) << what;
}

// Every row's SQNR equals PyTorch's for the module (over all its calls when one row has them
// all, call by call when each call has a row of its own), and the rows come in the order
// PyTorch's forward hooks first see each module finish.
void expect_layers_match_pytorch(const std::string& model) {
  SCOPED_TRACE(model);
  json rows = layers_of(model);
  json reference = reference_json({"layers", example_source(model), example_model(model), "16", example_input(model)});
  ASSERT_FALSE(rows.empty());
  std::map<std::string, std::vector<json>> rows_by_path;
  std::vector<std::string> order;
  for (const auto& row : rows) {
    std::string path = row["path"];
    if (rows_by_path[path].empty()) order.push_back(path);
    rows_by_path[path].push_back(row);
  }
  std::vector<std::string> reference_order;
  for (const auto& module : reference) {
    std::string path = module["path"];
    reference_order.push_back(path);
    SCOPED_TRACE(path);
    ASSERT_TRUE(rows_by_path.count(path)) << rows.dump(2);
    const std::vector<json>& mine = rows_by_path[path];
    EXPECT_EQ(mine.front()["kind"], module["kind"]);
    if (mine.size() == 1) {
      EXPECT_EQ(mine.front()["calls"], module["calls"].size());
      expect_db_near(mine.front()["sqnr_db"], module["sqnr"], "over all calls");
      continue;
    }
    ASSERT_EQ(mine.size(), module["calls"].size());
    for (size_t call = 0; call < mine.size(); ++call) {
      EXPECT_EQ(mine[call]["calls"], 1);
      expect_db_near(mine[call]["sqnr_db"], module["calls"][call], "call " + std::to_string(call + 1));
    }
  }
  EXPECT_EQ(order, reference_order);
}

TEST(SimLayers, EveryLayersSqnrIsPyTorchs) {
  expect_layers_match_pytorch("sim/layer_error");
  expect_layers_match_pytorch("sim/reused_layer");
  expect_layers_match_pytorch("sim/two_stub_convnet");
}

// The example's error explodes at `self.center`: the quant point and the calibration before it
// keep about 100 dB, the centring about 20 dB; the text marks that row as the first under 40.
TEST(SimLayers, FirstLayerUnderTheThresholdIsWhereTheErrorExplodes) {
  json rows = layers_of("sim/layer_error");
  ASSERT_GE(rows.size(), 3u);
  EXPECT_EQ(rows[0]["path"], "quant");
  EXPECT_EQ(rows[0]["kind"], "quant_point");
  EXPECT_GT(db(rows[0]["sqnr_db"]), 95);
  EXPECT_EQ(rows[1]["path"], "calibrate");
  EXPECT_GT(db(rows[1]["sqnr_db"]), 95);
  EXPECT_EQ(rows[2]["path"], "center");
  EXPECT_LT(db(rows[2]["sqnr_db"]), 25);
  EXPECT_EQ(rows[2]["line"], 47);  // x = self.center(x)
  EXPECT_EQ(rows[2]["file"], "examples/sim/layer_error.py");

  auto text =
      run_qlint({"sim", example_model("sim/layer_error"), "--input", example_input("sim/layer_error"), "--layers"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Layers (each value against float, in execution order):"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  self.center (module) at examples/sim/layer_error.py:47:"), std::string::npos) << text.out;
  size_t marked = text.out.find("<- first under 40 dB");
  ASSERT_NE(marked, std::string::npos) << text.out;
  EXPECT_EQ(text.out.rfind("self.", marked), text.out.rfind("self.center", marked)) << text.out;
  EXPECT_EQ(text.out.find("<- first under", marked + 1), std::string::npos) << "marked once";
}

// A module called from two lines has a row per line; the modules inside it, called twice from
// one line each, one row that counts both calls.
TEST(SimLayers, AReusedModuleHasARowPerCallSite) {
  json rows = layers_of("sim/reused_layer");
  std::vector<json> step, fc;
  for (const auto& row : rows) {
    if (row["path"] == "step") step.push_back(row);
    if (row["path"] == "step.fc") fc.push_back(row);
  }
  ASSERT_EQ(step.size(), 2u) << rows.dump(2);
  EXPECT_EQ(step[0]["line"], 34);
  EXPECT_EQ(step[1]["line"], 35);
  EXPECT_EQ(step[0]["calls"], 1);
  ASSERT_EQ(fc.size(), 1u) << rows.dump(2);
  EXPECT_EQ(fc[0]["calls"], 2);
  EXPECT_EQ(fc[0]["compared"], 2);

  auto text =
      run_qlint({"sim", example_model("sim/reused_layer"), "--input", example_input("sim/reused_layer"), "--layers"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("self.step.fc (module) at examples/sim/reused_layer.py:"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(", 2 calls"), std::string::npos) << text.out;
}

// The float values wait for the simulated run within --layers-memory: what does not fit is not
// compared, and the report says so instead of running out of memory.
TEST(SimLayers, ValuesOverTheMemoryBudgetAreCountedNotCompared) {
  const std::string model = example_model("sim/reused_layer");
  // 100000x8 floats: 3 MiB a value (the head's 100000x3: 1.1 MiB), more than the 1 MiB budget.
  json capped = sim_json({model, "--random-input", "100000x8", "--layers", "--layers-memory", "1"});
  EXPECT_EQ(capped["layers_memory_mib"], 1);
  // quant, step twice, step.fc twice, step.act twice, head, dequant
  EXPECT_EQ(capped["layers_not_compared"], 9) << capped["layers"].dump(2);
  for (const auto& row : capped["layers"]) {
    EXPECT_EQ(row["compared"], 0) << row.dump();
    EXPECT_TRUE(row["sqnr_db"].is_null()) << row.dump();
  }
  auto text = run_qlint({"sim", model, "--random-input", "100000x8", "--layers", "--layers-memory", "1"});
  EXPECT_NE(text.out.find("not compared: over --layers-memory 1 MiB"), std::string::npos) << text.out;

  json roomy = sim_json({model, "--random-input", "100000x8", "--layers"});
  EXPECT_EQ(roomy["layers_not_compared"], 0);
  for (const auto& row : roomy["layers"]) EXPECT_EQ(row["compared"], row["calls"]) << row.dump();
}

TEST(SimLayers, WithoutTheFlagThereIsNoLayersMember) {
  json doc = sim_json({example_model("sim/layer_error"), "--input", example_input("sim/layer_error")});
  EXPECT_FALSE(doc.contains("layers"));
}

TEST(SimLayers, ABadMemoryBudgetIsOneClearError) {
  auto r = run_qlint({"sim", example_model("sim/layer_error"), "--input", example_input("sim/layer_error"), "--layers",
                      "--layers-memory", "0"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--layers-memory"), std::string::npos) << r.err;
}

// A converted model's quant points are its quantize op's and its quantized kernels' outputs:
// each with the scale and zero point PyTorch's own eager model gives that module's output.
void expect_converted_points_match_pytorch(const std::string& model, const std::set<std::string>& expected) {
  SCOPED_TRACE(model);
  json doc = sim_json({example_model(model), "--input", example_input(model)});
  json reference = reference_json({"converted-scales", example_source(model), example_input(model)});
  std::set<std::string> listed;
  for (const auto& p : doc["quant_points"]) {
    std::string path = p["path"];
    SCOPED_TRACE(path);
    EXPECT_TRUE(p["op"].is_string()) << p.dump();
    if (!reference.contains(path)) continue;  // named by its value: no module of its own
    listed.insert(path);
    EXPECT_EQ(p["scale"].get<double>(), reference[path]["scale"].get<double>());
    EXPECT_EQ(p["zero_point"], reference[path]["zero_point"]);
  }
  EXPECT_EQ(listed, expected);
}

TEST(SimLayers, ConvertedModelsListTheirQuantPoints) {
  expect_converted_points_match_pytorch(
      "flows/eager_converted_scripted",
      {"quant", "stem", "block.conv1", "block.conv2", "block.skip", "gate.fc", "gate.apply_gate"});
  expect_converted_points_match_pytorch(
      "flows/eager_converted_kernels_traced",
      {"quant", "stem", "block.conv", "block.bn", "block.hardswish", "block.leaky", "block.relu6", "block.elu", "up",
       "group_norm", "instance_norm", "seq", "seq_up", "norm"});
}

// The kernels run in PyTorch's module code: their quant points are at the user's lines that call
// the modules, and the text names the op.
TEST(SimLayers, ConvertedQuantPointsAreAtTheUsersLines) {
  const std::string model = "flows/eager_converted_scripted";
  json doc = sim_json({example_model(model), "--input", example_input(model)});
  std::map<std::string, json> points;
  for (const auto& p : doc["quant_points"]) points[p["path"]] = p;
  ASSERT_TRUE(points.count("stem")) << doc["quant_points"].dump(2);
  EXPECT_EQ(points["stem"]["op"], "quantized::conv2d");
  EXPECT_EQ(points["stem"]["sites"], json::parse(R"([{"file": "examples/flows/eager_converted_scripted.py",
                                                     "line": 63, "column": 34}])"));
  EXPECT_EQ(points["quant"]["op"], "aten::quantize_per_tensor");
  EXPECT_EQ(points["quant"]["sites"][0]["line"], 62);
  EXPECT_EQ(points["block.skip"]["op"], "quantized::add");
  EXPECT_EQ(points["block.skip"]["sites"][0]["line"], 35);

  auto text = run_qlint({"sim", example_model(model), "--input", example_input(model)});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(
      text.out.find("  self.stem (quantized::conv2d) at examples/flows/eager_converted_scripted.py:63:34: scale "),
      std::string::npos)
      << text.out;
}

// On a converted model --layers compares each module's int8 output with the float reference's.
TEST(SimLayers, ConvertedModelsHaveLayersToo) {
  json rows = layers_of("flows/eager_converted_scripted");
  std::set<std::string> paths;
  for (const auto& row : rows) {
    paths.insert(row["path"].get<std::string>());
    EXPECT_EQ(row["compared"], row["calls"]) << row.dump();
    EXPECT_TRUE(std::isfinite(db(row["sqnr_db"])) || db(row["sqnr_db"]) > 0) << row.dump();
  }
  for (const char* path : {"quant", "stem", "block", "block.conv1", "gate", "dequant"})
    EXPECT_TRUE(paths.count(path)) << path << " in " << rows.dump(2);
}

}  // namespace
}  // namespace qlint
