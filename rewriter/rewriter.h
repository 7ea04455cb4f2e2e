// `qlint --fix`: applies the rules' fixes to the TorchScript module, re-runs the rules to a
// fixpoint, proves the result (float outputs and parameters bit-identical, simulated before
// and after) and writes it atomically. This header has no LibTorch dependency.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/facts.h"
#include "ir/ir.h"
#include "rules/diagnostic.h"
#include "sim/simulator.h"

namespace qlint::rewriter {

// The model could not be fixed safely; nothing was written. One line for the user.
struct FixError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct FixOptions {
  bool unsafe = false;  // also apply unsafe fixes
  bool write = true;    // false for --diff
  std::string output;   // "" rewrites the input in place
  sim::Inputs inputs;   // verification inputs; none: not simulated (said so)
  int bits = 16;
  std::optional<double> min_sqnr;  // --min-sqnr; by default sim::default_min_sqnr_db of the simulated width
  analysis::StubClasses stubs;
  int batch_threads = 1;  // input batches simulated at once (sim::Options::threads)
  // Rule re-runs; a fixpoint is normally reached in two or three. A method called from several
  // places gets one call inlined per round (a decoder layer calling `with_pos_embed` three
  // times, in each of two layers, takes six).
  int max_rounds = 16;
  // Rule selection and suppressions: only what the user would see is fixed.
  std::function<std::vector<Diagnostic>(const ir::Model&, std::vector<Diagnostic>)> filter;
};

// A quant point a fix created with a scale of its own (a new fake quant in a traced QAT
// model), and where the scale came from.
struct NewScale {
  std::string value;   // the quantized value's name in the graph, e.g. "mask", "heading"
  std::string module;  // the new FakeQuantize module's path ("pfn.coors_fake_quant"), or "" for a graph op
  double scale = 0;
  int64_t zero_point = 0;
  int64_t quant_min = 0;
  int64_t quant_max = 0;
  std::string source;  // "exact for a 0/1 mask", "calibrated on 1 input batch"
};

struct AppliedFix {
  std::string rule;
  std::string description;
  ir::SourceLoc loc;
  std::string function;  // where the graph changed, e.g. "forward", "head.forward"
  std::vector<NewScale> scales;
  std::string id;  // the finding it fixes (rule, place, op): the same in every attempt of one --fix
};

// A rewrite --fix tried and left out: the model with it simulated worse than the original.
struct DroppedFix {
  std::string rule;
  std::string description;
  ir::SourceLoc loc;
  std::string why;      // "output 1: SQNR 50.2 dB -> 48.1 dB"
  bool failed = false;  // the model failed verification with it (`why` says how)
  // What it did better, when anything ("`!=` on line 54 flips 0 of 5120 results instead of 220
  // of 5120"): a trade the user may still want to make in the Python model.
  std::string gain;
};

struct Verification {
  bool ran = false;
  bool float_identical = false;       // every output of every batch, bit for bit
  bool parameters_identical = false;  // every parameter and buffer of the original
  std::string problem;                // why it failed, when it did
  sim::Report before, after;
};

struct FixResult {
  int found = 0;  // diagnostics before fixing that --fix works on; one rewrite can resolve several
  // The simulation's other findings on the original (outputs under the threshold, flips no
  // rewrite reaches): the verdict judges them on the fixed model (simulation_failures).
  int judged_by_simulation = 0;
  std::vector<AppliedFix> applied;
  std::vector<HeldBackFix> held_back;  // unsafe fixes waiting for --unsafe-fixes
  std::vector<std::string> skipped;    // fixes that could not be applied, and why
  std::vector<DroppedFix> dropped;     // applied, then left out: they made the simulation worse
  std::set<std::string> rewritten_functions;
  std::string python_diff;
  std::vector<std::string> python_notes;
  Verification verification;
  bool stored_scales = false;     // a traced QAT model: its stored scales predate the fix
  bool text_only = false;         // an FX export: the Python change only, no model rewritten
  std::string verification_note;  // why a rewritten model was not simulated, when not for want of inputs
  bool written = false;
  std::string written_to;
  std::shared_ptr<ir::Model> final_model;  // the fixed model, for the remaining diagnostics
  // With inputs, what remains includes the sim-divergence findings of the model as --fix leaves
  // it, from its own simulation (the rounds leave simulation results out: they describe the
  // model before its rewrites).
  std::vector<Diagnostic> remaining;
  // The verdict: every comparison the final simulation still flips and every output it keeps
  // under the SQNR threshold (sim-divergence findings, whatever the rule selection). Empty
  // without inputs, and when the fix is complete.
  std::vector<Diagnostic> simulation_failures;
  double min_sqnr_db = 0;  // the threshold the verdict used

  // The simulation of the model as --fix leaves it: after the rewrites, or the original when
  // nothing was applied; null without inputs.
  const sim::Report* final_simulation() const;
  bool resolved() const { return simulation_failures.empty() && static_remaining() == 0; }
  int static_remaining() const;
  // What `check` reported on the original, and how many of those are gone: the findings --fix
  // works on and those the verdict judges, less what remains of either.
  int problems_found() const { return found + judged_by_simulation; }
  int problems_resolved() const;
};

// Throws FixError (verification failed, or the model cannot be read or written).
// `display` turns file paths into what the user sees (for the Python diff).
FixResult fix_model(const std::string& path, const FixOptions& options,
                    const std::function<std::string(const std::string&)>& display);

}  // namespace qlint::rewriter
