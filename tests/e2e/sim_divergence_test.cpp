// End-to-end: `qlint check --input` turns the simulation's evidence into findings (rule
// sim-divergence): flipped comparisons no static rule knows, outputs under --min-sqnr, and
// the confirmation of static findings the simulation proves.
#include <gtest/gtest.h>

#include <fstream>
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
using testing::run_qlint;

const std::string kExample = "rules/sim_divergence";
const std::string kSource = "examples/rules/sim_divergence.py";

json check_json(const std::vector<std::string>& args, int expected_exit) {
  std::vector<std::string> all = {"check", "--format", "json"};
  all.insert(all.end(), args.begin(), args.end());
  auto r = run_qlint(all);
  EXPECT_EQ(r.exit_code, expected_exit) << r.out << r.err;
  return json::parse(r.out);
}

std::vector<json> of_rule(const json& doc, const std::string& rule) {
  std::vector<json> out;
  for (const auto& d : doc["diagnostics"])
    if (d["rule"] == rule) out.push_back(d);
  return out;
}

std::string where(const json& d) {
  return d["file"].get<std::string>() + ":" + std::to_string(d["line"].get<int>()) + ":" +
         std::to_string(d["column"].get<int>()) + "-" + std::to_string(d["end_line"].get<int>()) + ":" +
         std::to_string(d["end_column"].get<int>());
}

// An output masked with -inf after the DeQuantStub holds -inf at the same places in float and
// once quantized (examples/clean/masked_logits.py): no error there, and no NaN SQNR reported.
TEST(SimDivergence, EqualInfinitiesInBothRunsAreNoError) {
  const std::string name = "clean/masked_logits";
  json doc = check_json({example_model(name), "--input", example_input(name)}, 0);
  EXPECT_TRUE(doc["diagnostics"].empty()) << doc.dump(2);
  auto sim = run_qlint({"sim", example_model(name), "--input", example_input(name)});
  EXPECT_EQ(sim.exit_code, 0) << sim.err;
  EXPECT_EQ(sim.out.find("nan"), std::string::npos) << sim.out;
  EXPECT_EQ(sim.out.find("NaN"), std::string::npos) << sim.out;
}

// YOLO-style score filtering (examples/zoo/candidate_rows.py): the first threshold flips for 5
// anchors, so the second one runs on 16 rows instead of 11, all of which pass it in both runs.
// Only the first is reported, and the output whose row count changed; the second threshold's
// rows cannot be paired with float's and are not counted as its flips (before: "16 of 16"), and
// the returned bool mask is judged by the first threshold, not by an SQNR (before: "output 1
// keeps only 3.4 dB"). A topk over those rows picks indices into other rows: not compared either.
TEST(SimDivergence, RowsAFlipLetThroughAreNotFlipsOfTheirOwn) {
  const std::string name = "zoo/candidate_rows";
  const std::string source = "examples/zoo/candidate_rows.py";
  json doc = check_json({example_model(name), "--input", example_input(name)}, 1);
  auto found = of_rule(doc, "sim-divergence");
  ASSERT_EQ(found.size(), 2u) << doc.dump(2);
  EXPECT_EQ(where(found[0]), source + ":30:22-30:38");
  EXPECT_NE(found[0]["message"].get<std::string>().find("gives a different result for 5 of 50 elements"),
            std::string::npos)
      << found[0]["message"];
  EXPECT_EQ(found[1]["line"], 35);
  EXPECT_NE(found[1]["message"].get<std::string>().find("output 0 changes shape once quantized (11x4 in float, 16x4"),
            std::string::npos)
      << found[1]["message"];
  auto sim = run_qlint({"sim", "--format", "json", example_model(name), "--input", example_input(name)});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  json report = json::parse(sim.out);
  // The second threshold, and the topk over the same rows: their runs are not compared.
  std::set<int> not_compared;
  for (const auto& c : report["comparisons"])
    if (c["line"] == 33 || c["line"] == 34) {
      EXPECT_EQ(c["differing"], 0) << c.dump();
      EXPECT_EQ(c["runs_not_compared"], 1) << c.dump();
      not_compared.insert(c["line"].get<int>());
    }
  EXPECT_EQ(not_compared, (std::set<int>{33, 34})) << report["comparisons"].dump(2);
  ASSERT_EQ(report["outputs"].size(), 3u);
  EXPECT_FALSE(report["outputs"][0]["integer"].get<bool>());
  EXPECT_TRUE(report["outputs"][1]["integer"].get<bool>());
  EXPECT_TRUE(report["outputs"][2]["integer"].get<bool>());
}

TEST(SimDivergence, AComparisonNoStaticRuleKnowsIsReportedOnlyWithInputs) {
  // Statically the model is clean: no rule describes a `>` threshold on quantized values.
  auto plain = run_qlint({"check", example_model(kExample)});
  EXPECT_EQ(plain.exit_code, 0) << plain.out;

  json doc = check_json({example_model(kExample), "--input", example_input(kExample)}, 1);
  auto found = of_rule(doc, "sim-divergence");
  ASSERT_EQ(found.size(), 2u) << doc.dump(2);
  ASSERT_EQ(doc["diagnostics"].size(), 2u) << doc.dump(2);
  // The comparison, at its Python range.
  EXPECT_EQ(where(found[0]), kSource + ":21:16-21:28");
  EXPECT_EQ(found[0]["severity"], "error");
  EXPECT_EQ(found[0]["node"], "aten::gt");
  EXPECT_NE(found[0]["message"].get<std::string>().find("`energy > 0.5` gives a different result for 2 of 4 "
                                                        "elements once quantized (int16 simulation on 1 input batch)"),
            std::string::npos)
      << found[0]["message"];
  // The output whose rows flipped, at forward's return statement.
  EXPECT_EQ(where(found[1]), kSource + ":23:9-23:35");
  EXPECT_EQ(found[1]["source_line"], "        return self.dequant(gated)");
  EXPECT_NE(found[1]["message"].get<std::string>().find("output 0 keeps only "), std::string::npos);
  EXPECT_NE(found[1]["message"].get<std::string>().find(" dB SQNR against float (threshold 40 dB, int16 simulation "
                                                        "on 1 input batch)"),
            std::string::npos)
      << found[1]["message"];

  // The text format shows it like any rule.
  auto text = run_qlint({"check", example_model(kExample), "--input", example_input(kExample)});
  EXPECT_NE(text.out.find(kSource + ":21:16: error: `energy > 0.5` gives a different result"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("[sim-divergence]"), std::string::npos);
}

TEST(SimDivergence, CatchesWhatTheStaticRulesMissInTheCorpus) {
  // The mask travels through a dict, and the static rules do not see (yet:
  // tests/e2e/flow_expectations.txt) that `feats["mask"] == 1` compares a quantized value; the
  // simulation sees it flip. Once a static rule reports it, the simulation confirms that finding
  // instead: either way line 39 is reported with the count.
  json doc = check_json({example_model("zoo/dict_plumbing"), "--input", example_input("zoo/dict_plumbing")}, 1);
  bool reported = false;
  for (const auto& d : doc["diagnostics"]) {
    if (d["line"] != 39) continue;
    if (d["rule"] == "sim-divergence") {
      EXPECT_EQ(d["message"].get<std::string>().rfind(
                    "`feats[\"mask\"] == 1` gives a different result for 44 of 64 elements once quantized", 0),
                0u)
          << d;
      EXPECT_NE(d["message"].get<std::string>().find("compare with 0 (which quantization keeps exact)"),
                std::string::npos);
      reported = true;
    } else {
      for (const auto& note : d["notes"])
        reported |= note.get<std::string>().rfind("confirmed by simulation: 44 of 64 results", 0) == 0;
    }
  }
  EXPECT_TRUE(reported) << doc.dump(2);
}

TEST(SimDivergence, CleanModelsStaySilentWithTheirInputs) {
  for (const char* model :
       {"seed/s6_separate_stubs", "clean/compare_zero", "clean/int_and_shape_compare", "clean/compare_before_stub",
        "clean/index_of_max", "clean/indexing_and_shapes", "clean/no_quant_point", "sim/two_stub_convnet",
        // `wh[wh < 0] = 0` flips 6 of 512 once quantized, each where the clamp writes what the
        // quantized run keeps (public round 29's CenterTrack: a sim-divergence error)
        "qat/qat_clamp_written_by_hand"}) {
    SCOPED_TRACE(model);
    for (const char* bits : {"16", "8"}) {
      auto r = run_qlint({"check", example_model(model), "--input", example_input(model), "--bits", bits});
      EXPECT_EQ(r.exit_code, 0) << "int" << bits << "\n" << r.out << r.err;
    }
  }
}

TEST(SimDivergence, ConfirmsTheStaticFindingInsteadOfRepeatingIt) {
  json doc = check_json({example_model("seed/s1_eq_one"), "--input", example_input("seed/s1_eq_one")}, 1);
  std::vector<std::string> rules;
  for (const auto& d : doc["diagnostics"]) rules.push_back(d["rule"]);
  // S1's comparison flips (eq-nonzero-const, and shared-stub-mask's mask comparison): it is
  // confirmed on both, not reported again; the output that lost all SQNR is.
  EXPECT_EQ(rules, (std::vector<std::string>{"shared-stub-mask", "eq-nonzero-const", "bool-arith", "sim-divergence"}))
      << doc.dump(2);
  for (const auto& d : doc["diagnostics"]) {
    // Then the cause and the other findings at it (attribution, tests/e2e/sim_test.cpp).
    if (d["rule"] == "eq-nonzero-const") {
      ASSERT_EQ(d["notes"].size(), 3u) << d;
      EXPECT_EQ(
          d["notes"][0],
          "confirmed by simulation: 4 of 8 results of this comparison differ (int16 simulation on 1 input batch)");
      EXPECT_EQ(d["notes"][1].get<std::string>().rfind("caused by `self.quant`", 0), 0u) << d;
    }
    if (d["rule"] == "shared-stub-mask") {
      ASSERT_EQ(d["notes"].size(), 3u) << d;
      EXPECT_EQ(d["notes"][0],
                "confirmed by simulation: 4 of 8 results of the mask comparison on line 16 differ (int16 simulation "
                "on 1 input batch)");
      EXPECT_EQ(d["notes"][1].get<std::string>().rfind("caused by `self.quant`", 0), 0u) << d;
    }
    if (d["rule"] == "sim-divergence") {
      EXPECT_EQ(d["message"].get<std::string>().rfind("output 0 keeps only 0.0 dB SQNR", 0), 0u) << d;
      EXPECT_EQ(d["line"], 18);  // `return self.dequant(out)`
    }
  }
  // With the static rule deselected, the simulation still reports the comparison.
  json alone = check_json(
      {"--select", "sim-divergence", example_model("seed/s1_eq_one"), "--input", example_input("seed/s1_eq_one")}, 1);
  ASSERT_EQ(alone["diagnostics"].size(), 2u) << alone.dump(2);
  EXPECT_EQ(alone["diagnostics"][0]["node"], "aten::eq");
  EXPECT_EQ(alone["diagnostics"][0]["line"], 16);
}

// Cell indices cast from quantized offsets, then overwritten where the float offsets fall outside
// the neighbourhood (examples/qat/qat_grid_cells_masked.py): the rounding moves the cast's result
// in 2 rows (PyTorch: floor(4 * fake_quantize(x)) vs floor(4 * x) on the example input), both
// overwritten with 0. The cast is judged as the model leaves its result: all as in float, no
// error (public round 18's sgan: "confirmed by simulation: 38 of 125", all in cells set to 0).
TEST(SimDivergence, AResultTheModelWritesIntoIsJudgedAsItLeavesIt) {
  const std::string name = "qat/qat_grid_cells_masked";
  json doc = check_json({example_model(name), "--input", example_input(name)}, 1);
  ASSERT_EQ(doc["diagnostics"].size(), 1u) << doc.dump(2);
  const json& d = doc["diagnostics"][0];
  EXPECT_EQ(d["rule"], "truncating-cast");
  EXPECT_EQ(d["severity"], "warning") << d;
  ASSERT_FALSE(d["notes"].empty()) << d;
  EXPECT_EQ(d["notes"].back(),
            "the int8 simulation on 1 input batch leaves all 42 results of this `to` as in float; other inputs may not")
      << d;
}

// The reason a finding has no automatic fix is the same on every run (examples/qat/
// qat_level_decode_in_place.py: the head writes box columns in place in its own forward, the
// post-processing writes scores in place in the model's). The writes were taken in the order of
// their addresses: public round 18 got three different notes in 8 runs of one command.
TEST(SimDivergence, TheSameRunSaysTheSameEveryTime) {
  const std::string name = "qat/qat_level_decode_in_place";
  std::string first;
  for (int run = 0; run < 4; ++run) {
    auto r = run_qlint({"check", example_model(name), "--input", example_input(name)});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    if (run == 0) {
      first = r.out;
      EXPECT_NE(first.find("no automatic fix: a value on the way is written in place column by column (`aten::copy_` "
                           "on line 29) in another function than the comparison's"),
                std::string::npos)
          << first;
    } else {
      EXPECT_EQ(r.out, first) << "run " << run;
    }
  }
}

TEST(SimDivergence, MinSqnrChangesTheOutcome) {
  // S6 is clean at the default threshold; asking for more than int16 gives it fails it.
  auto s6 = {example_model("seed/s6_separate_stubs"), std::string("--input"), example_input("seed/s6_separate_stubs")};
  std::vector<std::string> args(s6);
  args.insert(args.end(), {"--min-sqnr", "200"});
  json strict = check_json(args, 1);
  ASSERT_EQ(strict["diagnostics"].size(), 1u) << strict.dump(2);
  EXPECT_EQ(strict["diagnostics"][0]["rule"], "sim-divergence");
  EXPECT_NE(strict["diagnostics"][0]["message"].get<std::string>().find("(threshold 200 dB"), std::string::npos);
  // The example's output keeps a few dB: a threshold under that drops its finding, not the
  // comparison's.
  json lenient = check_json({example_model(kExample), "--input", example_input(kExample), "--min-sqnr", "-100"}, 1);
  ASSERT_EQ(lenient["diagnostics"].size(), 1u) << lenient.dump(2);
  EXPECT_EQ(lenient["diagnostics"][0]["node"], "aten::gt");
}

// A model whose only output is the class ids an argmax gives: the argmax is judged though no op
// reads its result (the model returns it), and no float output's SQNR would have shown it.
TEST(SimDivergence, AnIntegerResultTheModelReturnsIsJudged) {
  const std::string name = "qat/qat_class_ids_only";
  json doc = check_json({example_model(name), "--input", example_input(name)}, 1);
  auto found = of_rule(doc, "sim-divergence");
  ASSERT_EQ(found.size(), 1u) << doc.dump(2);
  EXPECT_EQ(found[0]["node"], "aten::argmax");
  EXPECT_EQ(found[0]["line"], 24);
  // PyTorch's own fake quant (the archive run with and without its fake quants) changes 12 of
  // the 512 class ids of this input, as the simulation does.
  EXPECT_NE(found[0]["message"].get<std::string>().find("gives a different integer result for 12 of 512"),
            std::string::npos)
      << found[0]["message"];
}

// Near-tied scores change places once quantized, and the tokens gathered in their order are the
// same four in another order: measured with its rows paired with float's (44.7 dB, as PyTorch
// gives for the archive with its rows paired; -0.9 dB position by position), so no finding.
TEST(SimDivergence, AnOutputHoldingFloatsRowsInAnotherOrderIsMeasuredRowByRow) {
  const std::string name = "qat/qat_ranked_tokens";
  json doc = check_json({example_model(name), "--input", example_input(name)}, 0);
  EXPECT_TRUE(doc["diagnostics"].empty()) << doc.dump(2);
  auto sim = run_qlint({"sim", "--format", "json", example_model(name), "--input", example_input(name)});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  const json output = json::parse(sim.out)["outputs"][0];
  EXPECT_TRUE(output["rows_reordered"].get<bool>()) << output;
  EXPECT_NEAR(output["sqnr_db"].get<double>(), 44.7, 0.05) << output;
  EXPECT_NEAR(output["positional_sqnr_db"].get<double>(), -0.9, 0.05) << output;
}

// `boxes[idx], classes[idx], top` after a topk whose near-tied scores swap once quantized
// (examples/qat/qat_topk_gathered_heads.py): the boxes are paired with float's rows; the class ids,
// one never-quantized number a row, are measured in the boxes' order, where they are float's
// (public round 29's CenterTrack: "0.0 dB" and a sim-divergence error on them). Position by
// position they keep 0.2 dB (PyTorch on the archive gives the same permutation of rows).
TEST(SimDivergence, OutputsGatheredByTheSameIndicesArePairedInOneOrder) {
  const std::string name = "qat/qat_topk_gathered_heads";
  json doc = check_json({example_model(name), "--input", example_input(name)}, 0);
  EXPECT_TRUE(doc["diagnostics"].empty()) << doc.dump(2);
  auto sim = run_qlint({"sim", "--format", "json", example_model(name), "--input", example_input(name)});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  const json outputs = json::parse(sim.out)["outputs"];
  EXPECT_TRUE(outputs[0]["rows_reordered"].get<bool>()) << outputs[0];
  EXPECT_TRUE(outputs[1]["rows_reordered"].get<bool>()) << outputs[1];
  EXPECT_EQ(outputs[1]["max_abs_error"], 0.0) << outputs[1];
  EXPECT_NEAR(outputs[1]["positional_sqnr_db"].get<double>(), 0.2, 0.05) << outputs[1];
  EXPECT_FALSE(outputs[2]["rows_reordered"].get<bool>()) << outputs[2];
}

// CenterNet's `_topk` decode (examples/qat/qat_peak_cells.py): four peaks within one step tie once
// quantized and topk returns the same cells in another order (PyTorch: 6 of 8 rows in other places,
// the same set in each image). The cast that makes rows of the indices, `(inds / WIDTH).int()`,
// holds its elements in topk's order and is compared as topk is, as a set per row: 0 of 8 (before:
// "gives a different integer result for 6 of 8 elements ... values that the rounding moves across a
// whole number", public round 11).
TEST(SimDivergence, ResultsInAPicksOrderAreComparedAsThePickIs) {
  const std::string name = "qat/qat_peak_cells";
  json doc = check_json({example_model(name), "--input", example_input(name)}, 0);
  EXPECT_TRUE(doc["diagnostics"].empty()) << doc.dump(2);
  auto sim = run_qlint({"sim", "--format", "json", example_model(name), "--input", example_input(name)});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  json report = json::parse(sim.out);
  std::set<int> lines;
  for (const auto& c : report["comparisons"]) {
    EXPECT_EQ(c["differing"], 0) << c.dump();
    EXPECT_EQ(c["elements"], 8) << c.dump();
    lines.insert(c["line"].get<int>());
  }
  EXPECT_EQ(lines, (std::set<int>{29, 30})) << report["comparisons"].dump(2);
  EXPECT_TRUE(report["outputs"][1]["rows_reordered"].get<bool>()) << report["outputs"][1];
}

// A trajectory head returning its modes sorted by near-tied scores (examples/qat/
// qat_trajectory_modes.py): the same trajectories with two modes swapped for some agents, along
// dim 1 of agents x modes x steps x 2, not the last but one dimension (public round 11's LaneGCN:
// "output 1 keeps only 8.7 dB"). Paired mode by mode: 39.0 dB, 6.6 dB positionally (PyTorch on
// the archive, 4 of 16 agents reordered).
TEST(SimDivergence, AnOutputWhoseModesAreReorderedIsMeasuredModeByMode) {
  const std::string name = "qat/qat_trajectory_modes";
  json doc = check_json({example_model(name), "--input", example_input(name)}, 0);
  EXPECT_TRUE(doc["diagnostics"].empty()) << doc.dump(2);
  auto sim = run_qlint({"sim", "--format", "json", example_model(name), "--input", example_input(name)});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  const json output = json::parse(sim.out)["outputs"][1];
  EXPECT_TRUE(output["rows_reordered"].get<bool>()) << output;
  EXPECT_NEAR(output["sqnr_db"].get<double>(), 39.0, 0.05) << output;
  EXPECT_NEAR(output["positional_sqnr_db"].get<double>(), 6.6, 0.05) << output;
}

// Farthest-point sampling then kNN, both on the stubbed points (examples/qat/qat_sampled_knn.py,
// public round 11's point-cloud transformer): the kNN's 56 of 256 changed neighbours are almost all
// the sampling's (PyTorch: 1 with float's centres), and its finding says so beside its own rounding
// (before: only "values closer than a quantization step change places"). The sampling writes its
// indices through a view (`idx[:, i] = far`), which the search for that decision follows.
TEST(SimDivergence, ADecisionOnRoundedValuesNamesTheChangedDecisionItAlsoFollows) {
  const std::string name = "qat/qat_sampled_knn";
  json doc = check_json({example_model(name), "--input", example_input(name)}, 1);
  bool knn = false;
  for (const auto& d : of_rule(doc, "sim-divergence"))
    if (d["line"] == 47) {
      knn = true;
      EXPECT_NE(d["message"].get<std::string>().find("56 of 256"), std::string::npos) << d["message"];
      bool named = false;
      for (const auto& note : d["notes"])
        named = named || note.get<std::string>().find(
                             "its operands also come from `far = torch.max(dist, -1)[1]` on "
                             "line 32, which changes first") != std::string::npos;
      EXPECT_TRUE(named) << d.dump(2);
    }
  EXPECT_TRUE(knn) << doc.dump(2);
}

// A confidence threshold on a max's values after the DeQuantStub (examples/qat/
// qat_confidence_after_max.py, public round 13's YOLOv5 NMS): PyTorch on the eager model, fake
// quant on and off, 7 of 512 class ids change and 10 of 512 thresholds flip, all 10 where the class
// id did not change. The max's values are the rounded best scores, so the threshold's flips are its
// own rounding (before: "though its operands carry no rounding: they come from `max` on line 29,
// which changes first").
TEST(SimDivergence, AThresholdOnAMaxsValuesIsItsOwnRounding) {
  const std::string name = "qat/qat_confidence_after_max";
  json doc = check_json({example_model(name), "--input", example_input(name)}, 1);
  bool threshold = false, max = false;
  for (const auto& d : of_rule(doc, "sim-divergence")) {
    const std::string message = d["message"].get<std::string>();
    if (d["line"] == 29) max = message.find("7 of 512") != std::string::npos;
    if (d["line"] != 30) continue;
    threshold = true;
    EXPECT_NE(message.find("10 of 512"), std::string::npos) << message;
    EXPECT_EQ(message.find("carry no rounding"), std::string::npos) << message;
    EXPECT_NE(message.find("compare the float values before the quant point"), std::string::npos) << message;
    for (const auto& note : d["notes"])  // the attribution's notes name the head's quant point
      EXPECT_EQ(note.get<std::string>().find("also come from"), std::string::npos) << note;
  }
  EXPECT_TRUE(threshold && max) << doc.dump(2);
}

// Token ids (1..39, pad id 1) through the features' stub and compared with the pad id: statically
// a 0/1 mask channel by its form; the simulation sees the ids, so shared-stub-mask stays silent
// and eq-nonzero-const drops "compare with 0". The pad mask passed into the attention layer makes
// its `mask == 0` flip: reported as the consequence of the `!=`, across the call.
TEST(SimDivergence, TheSimulationsValuesCorrectWhatTheFormSuggests) {
  const std::string name = "qat/qat_token_ids_pad_mask";
  const std::string source = "examples/qat/qat_token_ids_pad_mask.py";
  json doc = check_json({example_model(name), "--input", example_input(name)}, 1);
  EXPECT_TRUE(of_rule(doc, "shared-stub-mask").empty()) << doc.dump(2);
  auto eq = of_rule(doc, "eq-nonzero-const");
  ASSERT_EQ(eq.size(), 1u) << doc.dump(2);
  EXPECT_EQ(eq[0]["message"].get<std::string>().find("compare with 0"), std::string::npos) << eq[0]["message"];
  bool consequence = false;
  for (const auto& d : of_rule(doc, "sim-divergence"))
    if (d["line"] == 32) {
      consequence = true;
      EXPECT_NE(d["message"].get<std::string>().find("they come from `mask = (ids != PAD).unsqueeze(1)` on line 46, "
                                                     "which flips first"),
                std::string::npos)
          << d["message"];
    }
  EXPECT_TRUE(consequence) << doc.dump(2);
}

// A greedy decode loop unrolled by the trace: the step's padding mask is one line in each of the
// step's traced methods, the argmax one line of forward, each copy probed on its own. The first
// steps' masks (on the given tokens) never flip, later ones follow the tokens an earlier argmax
// picked: the mask is told as following the argmax, and the argmax, whose own first flips come
// before any mask's, is not told that the mask flips first (public round 23, a seq2seq decoder).
TEST(SimDivergence, ADecodeLoopsMaskFollowsTheArgmaxOfAnEarlierStep) {
  const std::string name = "qat/qat_greedy_padding_flips";
  json doc = check_json({example_model(name), "--input", example_input(name)}, 1);
  bool mask = false, argmax = false;
  for (const auto& d : of_rule(doc, "sim-divergence")) {
    const std::string message = d["message"].get<std::string>();
    if (d["line"] == 32) {
      mask = true;
      EXPECT_NE(message.find("they come from `ys = torch.cat([ys, self.step(ys).argmax(dim=1, keepdim=True)], dim=1)` "
                             "on line 45, which changes first"),
                std::string::npos)
          << message;
    } else if (d["line"] == 45) {
      argmax = true;
      EXPECT_EQ(message.find("carry no rounding"), std::string::npos) << message;
      for (const auto& note : d["notes"]) EXPECT_EQ(note.get<std::string>().find("also come from"), std::string::npos);
    }
  }
  EXPECT_TRUE(mask && argmax) << doc.dump(2);
}

// A trace records no line for a submodule's call: an output a head returns in a dict is reported
// at the head's `return`, where the value is computed, not without a line. After `--fix -o`, what
// remains is reported for the file written.
class SimDivergenceOutputs : public testing::TempDirTest {};

TEST_F(SimDivergenceOutputs, AnOutputComputedInASubmoduleHasItsLineAndRemainsInTheFileWritten) {
  const std::string name = "qat/qat_dict_head";
  json doc = check_json({example_model(name), "--input", example_input(name), "--min-sqnr", "60"}, 1);
  auto outputs = of_rule(doc, "sim-divergence");
  ASSERT_EQ(outputs.size(), 1u) << doc.dump(2);
  EXPECT_EQ(where(outputs[0]), "examples/qat/qat_dict_head.py:24:9-24:37");
  EXPECT_NE(outputs[0]["message"].get<std::string>().find("output 0 keeps only"), std::string::npos);
  const std::string fixed = tmp("fixed.pt");
  auto fix = testing::run_qlint({"check", "--format", "json", "--fix", example_model(name), "--input",
                                 example_input(name), "--min-sqnr", "60", "-o", fixed});
  ASSERT_EQ(fix.exit_code, 1) << fix.out << fix.err;
  json after = json::parse(fix.out);
  ASSERT_EQ(after["models"].size(), 1u) << after.dump(2);
  EXPECT_EQ(after["models"][0], fixed);
  auto remaining = of_rule(after, "sim-divergence");
  ASSERT_EQ(remaining.size(), 1u) << after.dump(2);
  EXPECT_EQ(remaining[0]["model"], fixed);
  EXPECT_EQ(remaining[0]["line"], 24);
}

// A cast reached twice through one helper, one copy of which --fix repairs
// (examples/qat/qat_voxels_of_two_sources.py): what remains at the helper's line is one problem,
// reported once (by sim-divergence, which counts its changed integers: a cast of a layer's output
// is no truncating-cast by its form), and the summary counts the reused stub as resolved: 1 of 2
// (public round 18: "for 0 of 2 problems", the cast reported by truncating-cast and again by
// sim-divergence).
TEST_F(SimDivergenceOutputs, ACastLeftAfterAPartialFixIsOneProblem) {
  const std::string name = "qat/qat_voxels_of_two_sources";
  const std::string fixed = tmp("fixed.pt");
  json doc = check_json({"--fix", "-o", fixed, example_model(name), "--input", example_input(name)}, 1);
  const json& fix = doc["fixes"][0];
  EXPECT_EQ(fix["found"], 2) << fix.dump(2);
  EXPECT_EQ(fix["resolved"], 1) << fix.dump(2);
  EXPECT_EQ(fix["remaining"], 1) << fix.dump(2);
  ASSERT_EQ(doc["diagnostics"].size(), 1u) << doc.dump(2);
  EXPECT_EQ(doc["diagnostics"][0]["rule"], "sim-divergence");
  EXPECT_EQ(doc["diagnostics"][0]["line"], 22);
  // The cast of the points' own values is rewritten, and the copy left says why it has no fix.
  bool cast_rewritten = false;
  for (const auto& a : fix["applied"])
    cast_rewritten = cast_rewritten || (a["rule"] == "truncating-cast" && a["location"]["line"] == 22);
  EXPECT_TRUE(cast_rewritten) << fix.dump(2);
  EXPECT_NE(doc["diagnostics"][0]["notes"].dump().find("is itself computed from quantized values"), std::string::npos)
      << doc["diagnostics"][0].dump(2);
}

class SimDivergenceConfig : public testing::TempDirTest {};

TEST_F(SimDivergenceConfig, MinSqnrFromTheConfigFileAndOverriddenByTheCommandLine) {
  std::string config = tmp("qlint.toml");
  std::ofstream(config) << "min-sqnr = 200\n";
  std::vector<std::string> base = {"check",   "--format",
                                   "json",    "--config",
                                   config,    example_model("seed/s6_separate_stubs"),
                                   "--input", example_input("seed/s6_separate_stubs")};
  auto configured = testing::run_qlint_configured(base);
  EXPECT_EQ(configured.exit_code, 1) << configured.out << configured.err;
  EXPECT_NE(configured.out.find("(threshold 200 dB"), std::string::npos) << configured.out;
  base.insert(base.end(), {"--min-sqnr", "40"});
  auto overridden = testing::run_qlint_configured(base);
  EXPECT_EQ(overridden.exit_code, 0) << overridden.out << overridden.err;
  std::ofstream(config) << "min-sqnr = \"high\"\n";
  auto bad = testing::run_qlint_configured(base);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("`min-sqnr` must be a number of dB"), std::string::npos) << bad.err;
}

TEST(SimDivergence, SuppressionsSelectionAndFormatsWorkAsForAnyRule) {
  std::vector<std::string> input = {example_model(kExample), "--input", example_input(kExample)};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "check");
    args.insert(args.end(), input.begin(), input.end());
    return run_qlint(args);
  };
  EXPECT_EQ(with({"--ignore", "sim-divergence"}).exit_code, 0);
  EXPECT_EQ(with({"--select", "eq-nonzero-const"}).exit_code, 0);
  // `# qlint: ignore[sim-divergence]` on the comparison's line silences it; the output's
  // finding at the return stays.
  json suppressed =
      check_json({build_path("tests/models/sim_divergence_suppressed.pt"), "--input", example_input(kExample)}, 1);
  ASSERT_EQ(suppressed["diagnostics"].size(), 1u) << suppressed.dump(2);
  EXPECT_EQ(suppressed["diagnostics"][0]["rule"], "sim-divergence");
  EXPECT_NE(suppressed["diagnostics"][0]["message"].get<std::string>().find("output 0"), std::string::npos);
  auto sarif = with({"--format", "sarif"});
  EXPECT_EQ(sarif.exit_code, 1);
  json doc = json::parse(sarif.out);
  bool rule_listed = false;
  for (const auto& rule : doc["runs"][0]["tool"]["driver"]["rules"]) rule_listed |= rule["id"] == "sim-divergence";
  EXPECT_TRUE(rule_listed);
  ASSERT_EQ(doc["runs"][0]["results"].size(), 2u);
  EXPECT_EQ(doc["runs"][0]["results"][0]["ruleId"], "sim-divergence");
  auto github = with({"--format", "github"});
  EXPECT_NE(github.out.find("::error file=" + kSource + ",line=21"), std::string::npos) << github.out;
  EXPECT_NE(github.out.find("sim-divergence"), std::string::npos) << github.out;
}

TEST(SimDivergence, RulesAndExplainSayItNeedsInputs) {
  auto rules = run_qlint({"rules"});
  EXPECT_NE(rules.out.find("sim-divergence      error    (needs --input or --random-input)"), std::string::npos)
      << rules.out;
  auto explain = run_qlint({"explain", "sim-divergence"});
  EXPECT_EQ(explain.exit_code, 0);
  EXPECT_NE(explain.out.find("Without inputs nothing is simulated and this rule never fires"), std::string::npos)
      << explain.out;
  auto help = run_qlint({"check", "--help"});
  EXPECT_NE(help.out.find("--min-sqnr"), std::string::npos);
  EXPECT_NE(help.out.find("default: 40 for --bits 16, 20 for --bits 8"), std::string::npos) << help.out;
}

// A TorchScript archive records forward's inputs as `Tensor`, without dtype; the inputs given
// to `check --input` have one. examples/zoo/mask_cat.py casts its bool `valid` input to float
// and concatenates it with the points before one stub: a mask only the input's dtype reveals.
TEST(FlowsInputDtypes, BoolInputCastIntoOneStubIsAMask) {
  const std::string model = "zoo/mask_cat";
  EXPECT_TRUE(of_rule(check_json({example_model(model)}, 0), "shared-stub-mask").empty());
  json doc = check_json({example_model(model), "--input", example_input(model)}, 1);
  auto found = of_rule(doc, "shared-stub-mask");
  ASSERT_EQ(found.size(), 1u) << doc.dump(2);
  EXPECT_EQ(where(found[0]), "examples/zoo/mask_cat.py:27:13-27:23");
  EXPECT_NE(found[0]["message"].get<std::string>().find("its input concatenates them"), std::string::npos);
}

// A size the data decides (how many boxes pass a threshold, examples/sim/detections_kept.py)
// changes once quantized: 4 boxes in float, 3 simulated. It is a finding at the `return`, next
// to the flipped threshold (which the score channel's stub, shared with the coordinates,
// predicts: the simulation confirms that finding), and the report says so; it used to stop
// every command with "The size of tensor a (4) must match the size of tensor b (3)" (found on a
// public SSD head).
TEST(SimDivergence, AnOutputWhoseShapeChangesIsAFindingNotAnError) {
  const std::string model = example_model("sim/detections_kept");
  const std::string input = example_input("sim/detections_kept");
  json doc = check_json({model, "--input", input}, 1);
  std::vector<json> threshold = of_rule(doc, "shared-stub-mask");
  ASSERT_EQ(threshold.size(), 1u) << doc.dump(2);
  EXPECT_NE(threshold[0]["notes"].dump().find(
                "confirmed by simulation: 1 of 5 results of the mask comparison on line 26 differ"),
            std::string::npos)
      << threshold[0].dump();
  std::vector<json> found = of_rule(doc, "sim-divergence");
  ASSERT_EQ(found.size(), 1u) << doc.dump(2);
  EXPECT_EQ(found[0]["line"], 27) << found[0].dump();  // the return
  EXPECT_NE(found[0]["message"].get<std::string>().find(
                "output 0 changes shape once quantized (4x4 in float, 3x4 once quantized"),
            std::string::npos)
      << found[0].dump();
  // The threshold that decides its rows, named (public round 24: a YOLO's changed count was told to
  // find a comparison where only NMS had changed).
  EXPECT_NE(found[0]["notes"].dump().find(
                "its rows are picked by `x[:, 4] > 0.5` on line 26, which flips first (1 of 5): take that decision "
                "on float values"),
            std::string::npos)
      << found[0].dump();

  auto sim = run_qlint({"sim", "--format", "json", model, "--input", input});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  json report = json::parse(sim.out);
  EXPECT_EQ(report["outputs"][0]["shape_difference"], "4x4 in float, 3x4 once quantized");
  EXPECT_EQ(report["outputs"][0]["sqnr_db"], "-inf");
}

// An output that keeps its shape once quantized, one of whose rows is another candidate's box (an
// argmax over near-tie scores picked it): its low SQNR is reported with a note naming the argmax
// as what picks its rows, not only the advice to give lost precision a quant point (public round
// 24: RetinaFace kept its 2 boxes once quantized, one of them another prior's).
TEST(SimDivergence, AnOutputWhoseRowsAChangedPickReplacedNamesThePick) {
  const std::string name = "sim/best_box_pick";
  json doc = check_json({example_model(name), "--input", example_input(name)}, 1);
  auto found = of_rule(doc, "sim-divergence");
  ASSERT_EQ(found.size(), 2u) << doc.dump(2);
  EXPECT_EQ(found[0]["line"], 27) << doc.dump(2);  // the argmax, 1 of 2 (float picks 0.703, the tie the first)
  EXPECT_NE(found[0]["message"].get<std::string>().find("1 of 2 elements"), std::string::npos) << found[0].dump();
  EXPECT_EQ(found[1]["line"], 28) << doc.dump(2);
  EXPECT_NE(found[1]["message"].get<std::string>().find("output 0 keeps only"), std::string::npos) << found[1].dump();
  EXPECT_NE(found[1]["notes"].dump().find("its rows are picked by `x[:, :, 4].argmax` on line 27, which changes "
                                          "first (1 of 2): some of its rows may be other rows than the float "
                                          "model's, not rounded ones"),
            std::string::npos)
      << found[1].dump();
}

}  // namespace
}  // namespace qlint
