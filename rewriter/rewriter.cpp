#include "rewriter/rewriter.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "ir/archive_check.h"
#include "ir/display.h"
#include "ir/input_file.h"
#include "ir/ops.h"
#include "ir/source_text.h"
#include "ir/torchscript/graph_rewriter.h"
#include "ir/torchscript/module_import.h"
#include "rewriter/edits/edit_kind.h"
#include "rewriter/file_output.h"
#include "rewriter/never_worse.h"
#include "rewriter/source_suggestions.h"
#include "rewriter/verdict.h"
#include "rules/registry.h"
#include "rules/support.h"
#include "sim/libtorch.h"
#include "sim/report.h"

namespace qlint::rewriter {

namespace {

namespace jit = torch::jit;
namespace fs = std::filesystem;

// ---- Planning ---------------------------------------------------------------------------------

// A finding as never-worse leaves it out of an attempt: its rule, Python place and op, without
// the function. A fix in a free function inlines the call first, so the same finding is in
// `decode` in one attempt and in `forward` in another; the instances of a layer class on one
// line are left out together.
std::string exclusion_key(const Diagnostic& d) {
  return d.rule + "@" + d.loc.file + ":" + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.column) + ":" +
         (d.node ? d.node->kind : "");
}

// A finding across rounds and attempts: its rule, Python place and op, and the function it is in
// (a traced model gives each instance of a layer class a forward of its own, all on the same
// Python line: each instance's finding is fixed in its own right).
std::string signature(const Diagnostic& d) { return exclusion_key(d) + " in " + (d.function ? d.function->name : ""); }

struct Planned {
  const Diagnostic* diagnostic;
  Fix fix;  // a copy: calibration fills in the scales of new fake quants
};

// Whether a fix changes the graph's structure (unrolls a loop, inlines a call): the nodes it
// replaces are gone afterwards, so no other fix may name them in the same round.
bool restructures(const Fix& fix) {
  return std::any_of(fix.edits.begin(), fix.edits.end(),
                     [](const Edit& e) { return e.kind == Edit::Kind::UnrollLoop || e.inline_call != nullptr; });
}

// What a round has done for a finding: its signature, and for a fix that inlines a helper's call
// the call it inlines. A helper called from two places keeps its finding after the first call's
// fix (the other call still runs it), and the next round inlines the other call.
// Two findings of one rule at one traced statement (`cat([xs + v, ys + v])`: both `+` have the
// statement's range) are told apart by the operand the fix quantizes, so the second is not taken
// for the first one fixed already; so are two module outputs on one line by the fake quant each
// clones (`self.embed(x)` of an nn.Sequential: its first and last Linear's, public round 16's
// Point-MAE, where the second was skipped without a word).
std::string planned_signature(const Diagnostic& d, const Fix& fix) {
  std::string key = signature(d);
  for (const Edit& e : fix.edits) {
    if (e.inline_call != nullptr)
      key += " inlining the call at " + std::to_string(e.inline_call->loc.line) + ":" +
             std::to_string(e.inline_call->loc.column);
    if ((e.kind == Edit::Kind::QuantizeOperand || e.kind == Edit::Kind::NewFakeQuant) && e.node != nullptr &&
        e.operand >= 0 && static_cast<size_t>(e.operand) < e.node->inputs.size())
      key += " on `" + ir::display_name(e.node->inputs[static_cast<size_t>(e.operand)]) + "`";
    if (!e.template_stub.empty()) key += " like `" + e.template_stub + "`";
  }
  return key;
}

// ---- Quant calls a round's reroots leave unread

using Operands = std::set<std::pair<const ir::Node*, size_t>>;

// The operands a round's reroots give their float values instead (a cast of `self.quant(b)`
// reading `b`).
Operands rerooted_operands(const std::vector<Planned>& planned) {
  Operands rerooted;
  for (const Planned& p : planned)
    for (const Edit& e : p.fix.edits)
      if (e.kind == Edit::Kind::Reroot && e.node != nullptr && e.operand >= 0)
        rerooted.insert({e.node, static_cast<size_t>(e.operand)});
  return rerooted;
}

void add_returned(const ir::Block& block, std::set<const ir::Value*>& returned) {
  returned.insert(block.returns.begin(), block.returns.end());
  for (const auto& node : block.nodes)
    for (const auto& inner : node->blocks) add_returned(*inner, returned);
}

// Whether nothing reads `v` once the rerooted operands read float values: each reader is one of
// them, or a view whose own outputs nothing reads then. Bounded: a deep chain counts as read.
// `returned`: what the function's blocks return (add_returned), which is read.
bool unread_after(const ir::Value* v, const std::set<const ir::Value*>& returned, const Operands& rerooted,
                  int depth = 0) {
  if (depth > 32 || returned.count(v)) return false;
  for (const ir::Node* user : v->users) {
    bool every_read_rerooted = true;
    for (size_t i = 0; i < user->inputs.size(); ++i)
      if (user->inputs[i] == v && !rerooted.count({user, i})) every_read_rerooted = false;
    if (every_read_rerooted) continue;
    if (!ir::is_view_op(*user) || ir::writes_anything_in_place(*user)) return false;
    for (const ir::Value* out : user->outputs)
      if (!unread_after(out, returned, rerooted, depth + 1)) return false;
  }
  return true;
}

// A fix that gives a quant call a stub or fake quant of its own (reused-stub), in a round whose
// reroots leave that call's value unread (`self.quant(b).long()`, truncating-cast casting `b`
// instead): the reroot drops the call, and the clone would quantize nothing (public round 25: a
// dead fake quant the user had to calibrate, counted "Resolved").
bool gives_an_unread_call_its_own_point(const ir::Model& model, const Planned& p, const Operands& rerooted) {
  for (const Edit& e : p.fix.edits) {
    const bool replaces_call =
        e.kind == Edit::Kind::CloneStub || (e.kind == Edit::Kind::NewFakeQuant && e.fake_quant.replaces_call);
    if (!replaces_call || e.node == nullptr || e.node->outputs.size() != 1) continue;
    const ir::Function* fn = model.function_of(*e.node);
    if (fn == nullptr) continue;
    std::set<const ir::Value*> returned;
    add_returned(fn->body, returned);
    if (unread_after(e.node->outputs[0], returned, rerooted)) return true;
  }
  return false;
}

// One fix per diagnostic; edits touching a node another planned fix edits wait for the next
// round (the rules re-run first, and the other fix may have made them moot). A fix that
// restructures the graph has a round of its own.
std::vector<Planned> plan(const ir::Model& model, const std::vector<Diagnostic>& diagnostics, bool unsafe,
                          std::set<std::string>& done, const std::set<std::string>& excluded) {
  std::vector<Planned> planned;
  std::set<const ir::Node*> touched;
  for (const auto& d : diagnostics) {
    const Fix* fix = first_applicable_fix(d, unsafe);
    if (fix == nullptr || excluded.count(exclusion_key(d))) continue;
    const std::string key = planned_signature(d, *fix);
    if (done.count(key)) continue;
    if (restructures(*fix) && !planned.empty()) continue;
    bool conflict =
        std::any_of(fix->edits.begin(), fix->edits.end(), [&](const Edit& e) { return touched.count(e.node); });
    if (conflict) continue;
    for (const auto& e : fix->edits) touched.insert(e.node);
    done.insert(key);
    planned.push_back({&d, *fix});
    if (restructures(*fix)) break;
  }
  // A clone for a call the round's reroots leave unread waits: the next round's rules no longer
  // see the call.
  const Operands rerooted = rerooted_operands(planned);
  if (rerooted.empty()) return planned;
  planned.erase(std::remove_if(planned.begin(), planned.end(),
                               [&](const Planned& p) {
                                 if (!gives_an_unread_call_its_own_point(model, p, rerooted)) return false;
                                 done.erase(planned_signature(*p.diagnostic, p.fix));
                                 return true;
                               }),
                planned.end());
  return planned;
}

// ---- Verification -----------------------------------------------------------------------------

// Bit for bit, in any layout: a sparse buffer (whisper's `alignment_heads`) has no `equal`
// kernel, so its indices and values are compared once coalesced (before, `--fix` failed with an
// internal error on every such model).
bool same_tensor(const at::Tensor& a, const at::Tensor& b) {
  if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes() || a.layout() != b.layout()) return false;
  if (a.is_sparse()) {
    const at::Tensor x = a.coalesce(), y = b.coalesce();
    return same_tensor(x.indices(), y.indices()) && same_tensor(x.values(), y.values());
  }
  if (a.layout() != at::kStrided) return same_tensor(a.to_dense(), b.to_dense());
  return at::equal(a, b);
}

std::string float_difference(const std::vector<c10::IValue>& original, const std::vector<c10::IValue>& fixed) {
  for (size_t b = 0; b < original.size() && b < fixed.size(); ++b) {
    std::vector<at::Tensor> expected, actual;
    sim::flatten_tensors(original[b], expected);
    sim::flatten_tensors(fixed[b], actual);
    if (expected.size() != actual.size()) return "the fixed model returns a different number of tensors";
    for (size_t i = 0; i < expected.size(); ++i)
      if (!same_tensor(expected[i], actual[i]))
        return "float output " + std::to_string(i) + " differs on input batch " + std::to_string(b + 1);
  }
  return "";
}

// Every parameter and buffer of a module, copied: the reference a fixed model is checked
// against, taken before the rewrite changes the module.
using StateSnapshot = std::map<std::string, at::Tensor>;

StateSnapshot snapshot_state(const jit::Module& module) {
  StateSnapshot state;
  for (const auto& p : module.named_parameters(true)) state[p.name] = p.value.detach().clone();
  for (const auto& b : module.named_buffers(true)) state[b.name] = b.value.detach().clone();
  return state;
}

std::string state_difference(const StateSnapshot& original, const jit::Module& fixed) {
  StateSnapshot kept;
  for (const auto& p : fixed.named_parameters(true)) kept[p.name] = p.value;
  for (const auto& b : fixed.named_buffers(true)) kept[b.name] = b.value;
  for (const auto& [name, value] : original) {
    auto it = kept.find(name);
    if (it == kept.end()) return "`" + name + "` is missing from the fixed model";
    if (!same_tensor(value, it->second)) return "`" + name + "` changed";
  }
  return "";
}

// A failpoint for the tests: QLINT_FAILPOINT=corrupt-fixed-output scales the fixed model's
// first output a little, so they can show that a fix failing verification is never written.
void apply_failpoint(jit::Module& module) {
  const char* failpoint = std::getenv("QLINT_FAILPOINT");
  if (failpoint == nullptr || std::string(failpoint) != "corrupt-fixed-output") return;
  torchscript::GraphRewriter(module).corrupt_first_output();
}

// ---- Writing ----------------------------------------------------------------------------------

// The archive's inner folder name as a file name LibTorch will derive it from, when it is one.
std::string archive_file_name(const std::string& folder, const std::string& target) {
  bool plain = !folder.empty() && folder != "." && folder != ".." && folder.size() <= 200 &&
               std::all_of(folder.begin(), folder.end(), [](char c) {
                 return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
               });
  if (plain) return folder + ".pt";
  return fs::path(target).stem().string() + ".pt";
}

// ---- The steps of --fix: plan, apply, verify, write ----------------------------------------

// What --fix works on: the user's archive, read once (load_torchscript), and what is known of
// it before any change.
struct Original {
  std::string path;
  jit::Module module;                // rewritten in place by apply()
  torchscript::LoadDetails details;  // extra files and folder name, written back
  StateSnapshot state;
  std::vector<sim::Batch> batches;  // the verification inputs, loaded once
  std::optional<sim::Run> before;   // its simulation, whose float outputs are the reference
  bool rewritten = false;           // `module` was rewritten by an attempt: load it again first
};

Original load_original(const std::string& path, const FixOptions& options, const sim::Options& sim_options) {
  Original original;
  original.path = path;
  try {
    original.module = torchscript::load_torchscript(path, &original.details);
  } catch (const torchscript::ImportError& e) {
    throw FixError(path + ": " + e.what());
  }
  original.state = snapshot_state(original.module);
  if (options.inputs.files.empty() && options.inputs.random_shapes.empty()) return original;
  try {
    original.batches = sim::load_batches(original.module, options.inputs);
    original.before = sim::simulate_loaded(original.module, path, original.batches, sim_options);
  } catch (const sim::SimError& e) {
    throw FixError(std::string("cannot simulate the model: ") + e.what() + sim::random_inputs_hint(options.inputs));
  }
  original.before->report.random_inputs = !options.inputs.random_shapes.empty();
  return original;
}

std::string where(const Diagnostic& d, const std::function<std::string(const std::string&)>& display) {
  return d.rule + " at " + display(d.loc.file) + ":" + std::to_string(d.loc.line);
}

// ---- Calibrating new fake quants --------------------------------------------------------------

// One line per refusal: each round plans the same finding again, and a finding with two copies on
// one line is refused once per copy (public round 19: the same "Not fixed" line twice).
void note_skipped(FixResult& result, std::string line) {
  if (std::find(result.skipped.begin(), result.skipped.end(), line) == result.skipped.end())
    result.skipped.push_back(std::move(line));
}

// The value a new fake quant quantizes, as the IR (and the simulator) name it.
const ir::Value* quantized_value(const Edit& e) { return e.node->inputs.at(static_cast<size_t>(e.operand)); }

// Names values by position in their graph (torchscript::value_positions): the simulator
// observes them in a copy of the module, where their numbers may differ. Each graph is
// numbered once.
class ValueIds {
 public:
  explicit ValueIds(const ir::Model& model) : model_(model) {}

  std::string of(const Edit& e) {
    const ir::Function* fn = model_.function_of(*e.node);
    const auto* value = static_cast<const jit::Value*>(quantized_value(e)->origin);
    if (fn == nullptr || value == nullptr) return "?";
    auto [graph, added] = positions_.try_emplace(value->owningGraph());
    if (added) graph->second = torchscript::value_positions(*value->owningGraph());
    auto it = graph->second.find(value);
    return it == graph->second.end() ? "?" : fn->name + ":" + it->second;
  }

 private:
  const ir::Model& model_;
  std::map<const jit::Graph*, std::map<const jit::Value*, std::string>> positions_;
};

bool needs_calibration(const Edit& e) { return e.kind == Edit::Kind::NewFakeQuant && !e.fake_quant.scale; }

// A new QuantStub is calibrated by the user's own calibration; its value is measured on the
// inputs only to refuse what no scale quantizes, as for a new fake quant.
bool is_new_stub_on_a_value(const Edit& e) { return e.kind == Edit::Kind::QuantizeOperand; }

// How a scale of 1 for whole numbers is named in the summary: "exact for the whole numbers 0..3".
std::string whole_numbers_source(int64_t from, int64_t up_to) {
  return "exact for the whole numbers " + std::to_string(from) + ".." + std::to_string(up_to);
}

// The scale a new fake quant has: the edit's, or the one a cloned fused FakeQuantize computed
// for itself from the range it was given.
std::optional<NewScale> new_scale(const Edit& e, const torchscript::GraphRewriter& graph) {
  if (e.kind != Edit::Kind::NewFakeQuant || !e.fake_quant.scale) return std::nullopt;
  const Edit::FakeQuant& q = e.fake_quant;
  std::string name = ir::display_name(quantized_value(e));
  NewScale scale{name.empty() ? "operand" : name, "", *q.scale, q.zero_point, q.quant_min, q.quant_max, q.scale_source};
  if (auto start = graph.fake_quant_clone_start(e.new_stub_owner, e.new_stub)) {
    scale.module = ir::qualified_function_name(e.new_stub_owner, e.new_stub);
    scale.scale = start->scale;
    scale.zero_point = start->zero_point;
    if (start->whole_up_to > 0) scale.source = whole_numbers_source(start->whole_from, start->whole_up_to);
  }
  return scale;
}

std::string batches_text(const sim::Report& report) {
  return std::to_string(report.batches) + (report.random_inputs ? " seeded random" : "") +
         (report.batches == 1 ? " input batch" : " input batches");
}

// A value this far from 0 is no activation but a stand-in for infinity (-1e4, -1e9 in attention
// masks; image coordinates and class offsets stay below it).
constexpr double kSentinelReach = 1e4;

// Gives every new fake quant of the planned fixes that needs one a scale measured on the
// inputs: the float model runs once with those values observed, and each gets the symmetric
// scale MinMaxObserver computes for its range (scale 1 for whole numbers that fit). A fix whose
// value cannot be measured (no inputs, or the inputs never reach it) is skipped, with the
// reason. The values of new QuantStubs are measured too, with inputs, and a value no scale
// quantizes (infinity, a -10000 stand-in for it) is refused for either.
void calibrate_new_fake_quants(const ir::Model& model, std::vector<Planned>& planned, Original& original,
                               const sim::Options& sim_options, FixResult& result,
                               const std::function<std::string(const std::string&)>& display) {
  sim::Options options = sim_options;
  ValueIds value_ids(model);
  std::map<const Edit*, std::string> ids;
  for (const auto& p : planned)
    for (const Edit& e : p.fix.edits)
      if (needs_calibration(e) || (is_new_stub_on_a_value(e) && !original.batches.empty())) {
        ids[&e] = value_ids.of(e);
        options.calibrate_values.push_back({ids[&e], e.fake_quant.quant_min, e.fake_quant.quant_max});
      }
  if (options.calibrate_values.empty()) return;
  std::map<std::string, sim::QuantPointResult> measured;
  std::string runs;
  if (!original.batches.empty()) {
    sim::Run run = sim::simulate_loaded(original.module, original.path, original.batches, options);
    run.report.random_inputs = original.before->report.random_inputs;
    for (const auto& value : run.report.calibrated_values) measured[value.path] = value;
    runs = batches_text(run.report);
  }
  auto calibrate = [&](Edit& e) -> std::string {
    const bool new_stub = is_new_stub_on_a_value(e);
    if (!needs_calibration(e) && !new_stub) return "";
    if (original.batches.empty())
      return new_stub
                 ? ""
                 : "the new fake quant's scale is calibrated on the inputs: give --input FILE or --random-input SHAPES";
    auto it = measured.find(ids[&e]);
    if (it == measured.end())
      return new_stub ? "" : "the inputs never reach the value the new fake quant would calibrate on";
    // An additive attention mask built with masked_fill(-inf): no scale quantizes it, and an
    // infinite one makes every output NaN.
    if (!std::isfinite(it->second.min) || !std::isfinite(it->second.max) || !std::isfinite(it->second.scale))
      return "the value holds " +
             std::string(std::isnan(it->second.min) || std::isnan(it->second.max) ? "NaN" : "infinity") +
             " on the inputs (a mask filled with -inf?), which no scale quantizes: keep it out of the quantized "
             "domain, e.g. apply a bool mask with masked_fill after the quantized op";
    // `scores + (1.0 - m) * -10000.0`: a finite stand-in for -inf. Its quant point would be
    // exact for the mask, but the sum's scale must then span 10000, rounding away the scores.
    if (const double reach = std::max(std::fabs(it->second.min), std::fabs(it->second.max)); reach >= kSentinelReach)
      return "the value reaches " + rules::format_number(it->second.min <= -reach ? it->second.min : it->second.max) +
             " on the inputs (a mask of large values standing in for -inf?): whatever it is added to would need a "
             "scale that spans it, which rounds the data away; keep it out of the quantized domain, e.g. apply a bool "
             "mask with masked_fill after the quantized op";
    if (new_stub) return "";  // the model's own calibration gives its scale
    // Indices, counts and class ids: a calibrated scale rounds them off the integers (class 78
    // became 78.07, cell 3 became 2.99); scale 1 keeps every one exact where the range fits. Ids
    // that were all 0 on the inputs (a one-class detector) get it too, for 0 and 1: calibrated,
    // their scale would be the observer's epsilon (1.2e-7), and class 1 would come out as 1.5e-5.
    // So do values the inputs showed to be whole numbers only (a float 0/1 mask given as an input
    // of a traced model: calibrated on [0, 1] by a symmetric int8 observer, 1 became 0.99608), or
    // a sign's -1, 0 and 1 (public round 19: 1 became 0.9961).
    const double top = std::max(it->second.max, 1.0);
    const double bottom = std::min(it->second.min, 0.0);
    const auto width = static_cast<double>(e.fake_quant.quant_max - e.fake_quant.quant_min);
    const bool fits =
        bottom < 0 ? top - bottom <= width
                   : top <= static_cast<double>(e.fake_quant.quant_max - std::max<int64_t>(e.fake_quant.quant_min, 0));
    const bool whole = e.fake_quant.whole_numbers || (it->second.whole_numbers && e.fake_quant.whole_if_observed);
    const bool exact_whole = whole && top == std::floor(top) && bottom == std::floor(bottom) && fits;
    // A value that is one constant on every input batch (OpenPCDet's `pi * dir_labels` where every
    // direction bin was 0; public round 30) gives no range: the observer's scale would be its
    // epsilon, 1.2e-7, and every other value would saturate on the next input (51 dB -> -1.8 dB).
    if (it->second.min == it->second.max && !exact_whole)
      return "the value is " + rules::format_number(it->second.min) +
             " on every input given, which gives its new fake quant no range to calibrate a scale on (any other "
             "value would saturate): give --input batches on which it varies";
    e.fake_quant.scale = it->second.scale;
    e.fake_quant.zero_point = it->second.zero_point;
    e.fake_quant.observed_min = it->second.min;
    e.fake_quant.observed_max = it->second.max;
    e.fake_quant.scale_source = "calibrated on " + runs;
    if (exact_whole) {
      e.fake_quant.whole_up_to = static_cast<int64_t>(top);
      e.fake_quant.whole_from = static_cast<int64_t>(bottom);
      // A graph op (a free function's value, which no module holds a clone for) takes scale 1 as
      // it is, with a zero point that keeps the range on the grid (public round 21: torchvision's
      // batched_nms class ids at a calibrated 0.0235, class 1 as 0.988).
      if (!e.creates_stub()) {
        e.fake_quant.scale = 1.0;
        e.fake_quant.zero_point = std::clamp<int64_t>(0, e.fake_quant.quant_min - e.fake_quant.whole_from,
                                                      e.fake_quant.quant_max - e.fake_quant.whole_up_to);
        e.fake_quant.scale_source = whole_numbers_source(e.fake_quant.whole_from, e.fake_quant.whole_up_to);
      }
    }
    return "";
  };
  std::vector<Planned> kept;
  for (auto& p : planned) {
    std::string refused;
    for (Edit& e : p.fix.edits)
      if (refused.empty()) refused = calibrate(e);
    if (refused.empty())
      kept.push_back(std::move(p));
    else
      note_skipped(result, where(*p.diagnostic, display) + ": " + refused);
  }
  planned = std::move(kept);
}

// Of what the simulation reports, --fix works on the flipped comparisons that no finding shown
// predicts (cli/evidence.cpp drops the predicted ones the same way for `check`) and that have a
// fix; the rest (outputs under the SQNR threshold, flips out of a rewrite's reach) the verdict
// judges on the fixed model, so they are not fixed here. Returns how many of those `check
// --input` reports (not the predicted ones, which it folds into their static findings).
int keep_fixable_unexplained_flips(std::vector<Diagnostic>& diagnostics) {
  const std::string rule = rules::sim_divergence_rule().id;
  // By line, as the simulation counts a line's copies together (cli/evidence.cpp).
  std::set<std::string> predicted;
  for (const auto& d : diagnostics)
    if (const ir::Node* n = d.evidence_node ? d.evidence_node : d.node; d.rule != rule && n && n->loc.known())
      predicted.insert(analysis::comparison_key(*n));
  auto is_predicted = [&](const Diagnostic& d) {
    return d.evidence_node && predicted.count(analysis::comparison_key(*d.evidence_node));
  };
  int judged = 0;
  diagnostics.erase(std::remove_if(diagnostics.begin(), diagnostics.end(),
                                   [&](const Diagnostic& d) {
                                     if (d.rule != rule || (d.evidence_node && !d.fixes.empty() && !is_predicted(d)))
                                       return false;
                                     if (!is_predicted(d)) ++judged;
                                     return true;
                                   }),
                    diagnostics.end());
  return judged;
}

// A new fake quant that was to be a module clone and became a graph op (a mask whose clone
// could not keep 0 and 1 exact): its description, written before, must say so.
bool fell_back_to_op(const Edit& e, const torchscript::GraphRewriter& graph) {
  return e.kind == Edit::Kind::NewFakeQuant && e.creates_stub() &&
         !graph.fake_quant_clone_start(e.new_stub_owner, e.new_stub);
}

std::string describe_op_fallback(std::string description, const Edit& e) {
  const std::string clone = " `self." + e.new_stub + "`, a clone of the model's FakeQuantize `" + e.template_stub + "`";
  if (auto at = description.find(clone); at != std::string::npos)
    description.replace(at, clone.size(),
                        " (a `fake_quantize_per_tensor_affine` op at scale 1: a clone of `" + e.template_stub +
                            "` would not keep 0 and 1 exact, its observer being on)");
  return description;
}

// The order a round's fixes are applied in: float twins first. A twin copies the nodes on its
// way as the graph has them when it is made; made after a new fake quant of the same round on an
// operand it shares (`self.quant(points) * valid`, `valid` getting its own), the twin read that
// fake quant's output, a quantized operand beside its float one, and the next round quantized
// the twin's float input, undoing the reroot (public round 17's pointMLP: 3.7 -> 2.9 dB, flips
// unchanged). Made first, the twin reads `valid` as the float model does.
std::vector<size_t> application_order(const std::vector<Planned>& planned) {
  std::vector<size_t> order(planned.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_partition(order.begin(), order.end(), [&](size_t i) {
    const auto& edits = planned[i].fix.edits;
    return std::any_of(edits.begin(), edits.end(), [](const Edit& e) { return e.kind == Edit::Kind::Reroot; });
  });
  return order;
}

// Applies one round's planned fixes to the module through one graph rewriter; a fix whose edit
// is refused is skipped whole (its earlier edits stay: each keeps float results on its own).
// What was applied and skipped is listed in the findings' order.
void apply(const ir::Model& model, const std::vector<Planned>& planned, jit::Module& module,
           SourceSuggestions& suggestions, FixResult& result,
           const std::function<std::string(const std::string&)>& display) {
  torchscript::GraphRewriter graph(module);
  std::set<std::string> listed;  // new fake quants whose scale is listed: one shared by two reads is listed once
  std::vector<std::optional<AppliedFix>> applied(planned.size());
  std::vector<std::string> skipped(planned.size());
  for (size_t index : application_order(planned)) {
    const auto& [d, fix] = planned[index];
    try {
      std::vector<NewScale> scales;
      std::string description = fix.description;
      for (const Edit& e : fix.edits) {
        edit_kind(e.kind).apply(model, e, graph);
        suggestions.add(model, e);
        if (const ir::Function* fn = model.function_of(*e.node)) result.rewritten_functions.insert(fn->name);
        if (e.inline_call)
          if (const ir::Function* fn = model.function_of(*e.inline_call)) result.rewritten_functions.insert(fn->name);
        // A float shadow passed down calls also changes each caller on the way.
        for (const ir::Node* call : e.shadow.calls)
          if (const ir::Function* fn = model.function_of(*call)) result.rewritten_functions.insert(fn->name);
        if (auto scale = new_scale(e, graph);
            scale && (!e.creates_stub() || listed.insert(e.new_stub_owner + "." + e.new_stub).second))
          scales.push_back(*scale);
        if (fell_back_to_op(e, graph)) description = describe_op_fallback(description, e);
      }
      applied[index] = AppliedFix{d->rule,           description,      d->loc, d->function ? d->function->name : "",
                                  std::move(scales), exclusion_key(*d)};
    } catch (const ir::RewriteRefused& e) {
      skipped[index] = where(*d, display) + ": " + e.what();
    } catch (const c10::Error& e) {
      skipped[index] = where(*d, display) + ": LibTorch refused the edit: " + torchscript::error_summary(e);
    }
  }
  for (size_t i = 0; i < planned.size(); ++i) {
    if (applied[i]) result.applied.push_back(std::move(*applied[i]));
    if (!skipped[i].empty()) note_skipped(result, std::move(skipped[i]));
  }
  graph.finish();
}

// Plans and applies fixes round by round, re-running the rules on the rewritten module, until
// nothing applicable is left or the round cap is reached.
void rewrite_to_fixpoint(Original& original, const FixOptions& options, const sim::Options& sim_options,
                         FixResult& result, const std::function<std::string(const std::string&)>& display,
                         const std::set<std::string>& excluded) {
  analysis::SimulationEvidence evidence;
  if (original.before) evidence = sim::evidence_from(original.before->report);  // lets unsafe fixes see the data
  // The first round also sees what the simulation measured, so a comparison only it shows
  // flipping gets its fix; later rounds do not (it describes the model before the rewrites).
  analysis::SimulationEvidence first_round = evidence;
  if (original.before)
    first_round.run = sim::simulated_run(
        original.before->report, options.min_sqnr.value_or(sim::default_min_sqnr_db(original.before->report.bits)));
  SourceSuggestions suggestions;
  std::set<std::string> done;
  for (int round = 0;; ++round) {
    auto model = std::make_shared<ir::Model>(torchscript::import_module(original.module, original.path));
    auto facts = analysis::Facts::compute(*model, options.stubs, round == 0 ? first_round : evidence);
    auto diagnostics = rules::run_all(facts);
    if (options.filter) diagnostics = options.filter(*model, std::move(diagnostics));
    if (round == 0) result.judged_by_simulation = keep_fixable_unexplained_flips(diagnostics);
    if (round == 0) result.found = static_cast<int>(diagnostics.size());
    std::vector<Planned> planned =
        round < options.max_rounds ? plan(*model, diagnostics, options.unsafe, done, excluded) : std::vector<Planned>{};
    calibrate_new_fake_quants(*model, planned, original, sim_options, result, display);
    if (planned.empty()) {
      // Quant points inside the graph with a scale from module state: a traced QAT model.
      for (const auto& call : facts.quant_calls())
        if (const analysis::QuantPoint* p = facts.quant_point(call.point); p && p->node && p->scale)
          result.stored_scales = true;
      result.final_model = model;
      result.remaining = std::move(diagnostics);
      result.held_back = unsafe_fixes_held_back(result.remaining, options.unsafe);
      break;
    }
    apply(*model, planned, original.module, suggestions, result, display);
  }
  result.python_diff = suggestions.diff(display);
  result.python_notes = suggestions.notes();
}

// Checks the fixed model as written: it loads, every parameter and buffer is the original's,
// and on the inputs its float outputs are the original's, bit for bit; then simulates it.
void verify(Verification& v, const Original& original, const std::string& fixed_path, const sim::Options& sim_options) {
  if (original.before) v.before = original.before->report;
  jit::Module fixed;
  try {
    fixed = torchscript::load_torchscript(fixed_path);
  } catch (const torchscript::ImportError& e) {
    v.problem = std::string("the fixed model does not load: ") + e.what();
    return;
  }
  v.problem = state_difference(original.state, fixed);
  v.parameters_identical = v.problem.empty();
  if (!original.before) return;
  v.ran = true;
  sim::Run after = sim::simulate_loaded(fixed, original.path, original.batches, sim_options);
  std::string float_problem = float_difference(original.before->float_outputs, after.float_outputs);
  v.float_identical = float_problem.empty();
  if (v.problem.empty()) v.problem = float_problem;
  v.after = std::move(after.report);
  v.after.model = fixed_path;
  v.after.random_inputs = original.before->report.random_inputs;
}

// A rewritten model, saved beside the target and verified, waiting to replace it.
struct SavedModel {
  WriteTarget target;
  std::unique_ptr<TempDir> dir;
  std::string file;
};

struct Attempt {
  FixResult result;
  std::unique_ptr<SavedModel> temp;  // null when nothing was applied, or it failed verification
  // Why the rewritten model failed verification (it failed to run, or its float results
  // changed), else empty: one rewrite that breaks the model need not cost the others.
  std::string failure;         // the whole message
  std::string failure_reason;  // "float output 0 differs on input batch 1"
};

// The rewritten model failed to run in the simulation, or failed verification.
struct VerificationFailure : FixError {
  VerificationFailure(const std::string& message, std::string why) : FixError(message), reason(std::move(why)) {}
  std::string reason;
};

// Saves the rewritten module beside the target and verifies it there; throws FixError when it
// cannot be written, VerificationFailure when it fails verification (nothing is then written).
std::unique_ptr<SavedModel> save_and_verify(Original& original, const FixOptions& options,
                                            const sim::Options& sim_options, FixResult& result) {
  apply_failpoint(original.module);
  auto saved = std::make_unique<SavedModel>();
  std::string output = options.output.empty() ? original.path : options.output;
  saved->target = resolve_write_target(output, original.path, !options.output.empty());
  remove_stale_temps(saved->target.path);
  // LibTorch names an archive's inner folder after the file, so the file in the temporary
  // directory is named after the original's folder.
  saved->dir = std::make_unique<TempDir>(saved->target.path);
  const std::string& target = saved->target.path;
  saved->file = (fs::path(saved->dir->path) / archive_file_name(original.details.folder, target)).string();
  try {
    original.module.save(saved->file, original.details.extra_files);
  } catch (const std::exception& e) {
    if (no_space(saved->dir->path))
      throw FixError(target + ": cannot write the fixed model: no space left on device; nothing was written");
    // QLINT_DEBUG=rewrite: the rewritten graphs LibTorch could not write, for a bug report.
    if (const char* debug = std::getenv("QLINT_DEBUG"); debug && std::strstr(debug, "rewrite") != nullptr)
      for (const auto& m : original.module.named_modules())
        for (const auto& method : m.value.get_methods())
          std::cerr << "qlint: debug: " << (m.name.empty() ? "" : m.name + ".") << method.name() << "\n"
                    << *method.graph() << "\n";
    throw FixError(target + ": cannot write the fixed model: " + ir::printable(ir::first_line(e.what()), 300) +
                   "; nothing was written");
  }
  // LibTorch's writer does not report every failed write (on a full disk it may leave an empty
  // file), so the archive written is checked to be whole before it is verified.
  bool whole = true;
  try {
    ir::read_zip_directory_of(saved->file);
  } catch (const ir::ImportError&) {
    whole = false;
  }
  if (sync_file(saved->file) == ENOSPC || (!whole && no_space(saved->dir->path)))
    throw FixError(target + ": cannot write the fixed model: no space left on device; nothing was written");
  if (!whole) throw FixError(target + ": cannot write the fixed model: the archive written is incomplete");
  try {
    verify(result.verification, original, saved->file, sim_options);
  } catch (const sim::SimError& e) {
    throw VerificationFailure(std::string("cannot verify the fix: ") + e.what(), e.what());
  }
  if (!result.verification.problem.empty())
    throw VerificationFailure(original.path + ": the fixed model failed verification (" + result.verification.problem +
                                  "); nothing was written",
                              result.verification.problem);
  return saved;
}

// One run of --fix on a fresh copy of the module, leaving out the fixes `excluded` names.
Attempt attempt(Original& original, const FixOptions& options, const sim::Options& sim_options,
                const std::set<std::string>& excluded, const std::function<std::string(const std::string&)>& display) {
  if (original.rewritten) original.module = torchscript::load_torchscript(original.path);
  original.rewritten = true;
  Attempt a;
  if (original.before) a.result.verification.before = original.before->report;
  rewrite_to_fixpoint(original, options, sim_options, a.result, display, excluded);
  try {
    if (!a.result.applied.empty()) a.temp = save_and_verify(original, options, sim_options, a.result);
  } catch (const VerificationFailure& e) {
    a.failure = e.what();
    a.failure_reason = e.reason;
  }
  return a;
}

// The SQNR an output must keep: --min-sqnr, else the default of the model's width.
double min_sqnr(const Original& original, const FixOptions& options) {
  return options.min_sqnr.value_or(sim::default_min_sqnr_db(original.before->report.bits));
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

// The fixes of `all` made the simulation worse (a fix must never lower an output's SQNR
// or add a flip), or the model fail verification. Each is tried in turn on top of those kept so
// far, and kept only when the model with it passes and is no worse than the original; the others
// are dropped, with what they did.
Attempt never_worse(Original& original, const FixOptions& options, const sim::Options& sim_options, Attempt all,
                    const std::function<std::string(const std::string&)>& display) {
  const std::vector<AppliedFix> candidates = all.result.applied;
  std::vector<std::string> ids;  // in the order the fixes were applied; copies share one
  for (const auto& c : candidates)
    if (std::find(ids.begin(), ids.end(), c.id) == ids.end()) ids.push_back(c.id);
  std::set<std::string> kept;
  std::vector<DroppedFix> dropped;
  std::optional<Attempt> best;
  for (const auto& candidate : ids) {
    std::set<std::string> excluded;
    for (const auto& id : ids)
      if (id != candidate && !kept.count(id)) excluded.insert(id);
    Attempt trial = attempt(original, options, sim_options, excluded, display);
    const std::vector<std::string> harm =
        // "with it, the model failed on input batch 1 in the quantized run: RuntimeError: ..." (public
        // round 28: a QuantStub on an int64 tensor made --fix exit 2, losing the other rewrites).
        !trial.failure.empty() ? std::vector<std::string>{"with it, " + trial.failure_reason}
        : trial.temp ? harm_done(original.before->report, trial.result.verification.after, min_sqnr(original, options))
                     : std::vector<std::string>{};
    if (harm.empty() && trial.temp) {
      kept.insert(candidate);
      best = std::move(trial);
      continue;
    }
    // What this rewrite adds to the ones kept so far (public round 16: a dropped stub was credited
    // with the flips a kept eq-nonzero-const rewrite had removed, measured from the original).
    const sim::Report& kept_so_far = best ? best->result.verification.after : original.before->report;
    const std::string gain =
        trial.temp ? joined(gain_made(kept_so_far, trial.result.verification.after)) : std::string();
    for (const auto& c : candidates)
      if (c.id == candidate)
        dropped.push_back({c.rule, c.description, c.loc, joined(harm), !trial.failure.empty(), gain});
  }
  if (!best)  // nothing kept
    best = attempt(original, options, sim_options, std::set<std::string>(ids.begin(), ids.end()), display);
  best->result.dropped = std::move(dropped);
  return std::move(*best);
}

}  // namespace

FixResult fix_model(const std::string& path, const FixOptions& options,
                    const std::function<std::string(const std::string&)>& display) {
  sim::Options sim_options;
  sim_options.bits = options.bits;
  sim_options.stubs = options.stubs;
  sim_options.threads = options.batch_threads;
  Original original = load_original(path, options, sim_options);
  Attempt chosen = attempt(original, options, sim_options, {}, display);
  if (!chosen.failure.empty() && !original.before) throw FixError(chosen.failure);
  if (!chosen.result.applied.empty() && original.before &&
      (!chosen.failure.empty() ||
       !harm_done(original.before->report, chosen.result.verification.after, min_sqnr(original, options)).empty()))
    chosen = never_worse(original, options, sim_options, std::move(chosen), display);
  FixResult& result = chosen.result;
  judge_final_model(result, options);
  if (options.write && chosen.temp) {
    replace_with(chosen.temp->file, chosen.temp->target, "the fixed model");
    result.written = true;
    result.written_to = chosen.temp->target.path;
  }
  return std::move(chosen.result);
}

}  // namespace qlint::rewriter
