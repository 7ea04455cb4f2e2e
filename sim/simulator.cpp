#include "sim/simulator.h"

#include <ATen/ThreadLocalState.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/custom_operator.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/script.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "analysis/comparisons.h"
#include "analysis/quant_domain.h"
#include "ir/display.h"
#include "ir/large_stack.h"
#include "ir/script_error.h"
#include "ir/torchscript/graph_rewriter.h"
#include "ir/torchscript/interpreter_limits.h"
#include "ir/torchscript/module_import.h"
#include "ir/torchscript/source_location.h"
#include "sim/attribution.h"
#include "sim/batch_order.h"
#include "sim/engine.h"
#include "sim/float_reference.h"
#include "sim/layer_error.h"
#include "sim/libtorch.h"
#include "sim/report.h"
#include "sim/row_order.h"

namespace qlint::sim {

namespace {

namespace jit = torch::jit;
using c10::IValue;

// ---- Run state shared with the custom operators --------------------------------------------
// The operators are process-global; the session they work for is set while a run is active,
// per thread: the interpreter calls them on the thread that runs the model, so models can be
// simulated in parallel (qlint check -j with --input).

enum class Mode { Float, Simulate };

// PyTorch's MinMaxObserver state: running min and max as float32 tensors.
struct Observer {
  at::Tensor min = at::full({}, std::numeric_limits<float>::infinity());
  at::Tensor max = at::full({}, -std::numeric_limits<float>::infinity());
  bool seen = false;

  void observe(const at::Tensor& x) {
    if (x.numel() == 0) return;
    auto [lo, hi] = at::aminmax(x.detach().to(at::kFloat));
    min = at::min(lo, min);
    max = at::max(hi, max);
    seen = true;
  }

  // observe, and whether every value seen was a whole number (a 0/1 mask, class ids): for a
  // value that is to get a new quant point (Options::calibrate_values), where scale 1 keeps them.
  bool whole_numbers = true;
  void observe_with_whole_numbers(const at::Tensor& x) {
    observe(x);
    if (!whole_numbers || x.numel() == 0) return;
    const at::Tensor values = x.detach().to(at::kFloat);
    whole_numbers = at::equal(values, at::round(values));
  }

  // What observing both observers' values gives: min and max are exact, in any order.
  void merge(const Observer& other) {
    if (other.seen) whole_numbers = whole_numbers && other.whole_numbers;
    if (!other.seen || (other.min.is_same(min) && other.max.is_same(max))) return;  // nothing new
    min = at::min(other.min, min);
    max = at::max(other.max, max);
    seen = true;
  }

  // MinMaxObserver._calculate_qparams for per_tensor_symmetric, op for op, so the float32
  // scale is the one PyTorch computes.
  double symmetric_scale(int64_t quant_min, int64_t quant_max) const {
    at::Tensor min_neg = at::min(min, at::zeros_like(min));
    at::Tensor max_pos = at::max(max, at::zeros_like(max));
    max_pos = at::max(-min_neg, max_pos);
    at::Tensor scale = max_pos / (static_cast<double>(quant_max - quant_min) / 2);
    scale = at::max(scale, at::full({}, std::numeric_limits<float>::epsilon()));
    return scale.item<double>();
  }

  // Symmetric around zero: 0 for a signed range, its middle for an unsigned one (quint8's
  // 0..255 gives 128, as MinMaxObserver's default quint8 range does).
  static int64_t symmetric_zero_point(int64_t quant_min, int64_t quant_max) {
    return quant_min < 0 ? 0 : (quant_min + quant_max + 1) / 2;
  }
};

struct PointState {
  std::string path;
  Observer observer;
  bool reached = false;              // the float run got here (also with an empty tensor)
  std::vector<ir::SourceLoc> sites;  // QuantPointResult::sites
  bool stored = false;               // a traced FakeQuantize: scale and range come from the model
  double scale = 0;
  int64_t zero_point = 0;
  int64_t quant_min = 0;
  int64_t quant_max = 0;
  std::string op;  // QuantPointResult::op: a converted model's int8 output
};

// One time the float run reached a probe: its result and, for an integer result, the sizes of
// the values it was decided on. NMS over 10 boxes where float had 8 (a threshold before it
// flipped) keeps indices into other rows: not compared.
struct FloatRun {
  at::Tensor result;
  std::vector<int64_t> operand_sizes;
};

struct ProbeState {
  std::string kind;
  ir::SourceLoc loc;
  std::vector<std::string> functions;  // ComparisonResult::functions
  size_t copy = 0;                     // ComparisonResult::copy
  size_t copies = 1;                   // ComparisonResult::copies
  // From the float run: per batch, each time the comparison ran (a comparison in a loop runs
  // once per iteration), in order; the simulated run's k-th time is judged against the float
  // run's k-th.
  std::vector<std::vector<FloatRun>> float_runs;
  std::vector<size_t> simulated_runs;  // per batch, how often the simulated run reached it
  int64_t elements = 0;
  int64_t differing = 0;
  int64_t runs_not_compared = 0;              // ComparisonResult::runs_not_compared
  std::optional<double> constant;             // the scalar the operand is compared with, if constant
  bool operand_only_zero_or_constant = true;  // over the float run
  bool integer_result = false;                // ComparisonResult::integer_result
  // The op picks a set of indices along this dimension (topk, NMS: analysis::picks_a_set): the
  // simulated run's set is compared with the float run's, whatever their order and sizes.
  std::optional<int64_t> set_dim;
  // Such a pick's probe whose order this result follows (`(topk_inds / width).int()`), and the
  // sizes of that pick's latest result: a result of the same sizes holds its elements in the
  // pick's order, so it is compared as a multiset along the pick's dimension.
  std::optional<size_t> ordered_by;
  std::vector<int64_t> latest_sizes;
  // The result is written in place further on (`cell[~inside] = 0` after the cast that made
  // `cell`): each run is judged as the model leaves the tensor, at the end of the batch's
  // forward, not as the op gave it (public round 18's sgan: 38 of 125 cell indices "differed",
  // every one in a cell the model then set to 0 in both runs).
  bool judged_at_end = false;
};

// A simulated run of a probe judged at the end of the batch (ProbeState::judged_at_end): the
// tensor itself, which the model's writes in place go on changing.
struct RunJudgedAtEnd {
  size_t probe = 0;
  size_t run = 0;
  at::Tensor result;
  IValue operand;
  std::optional<int64_t> pick_order_dim;
};

struct Session {
  Mode mode = Mode::Float;
  size_t batch = 0;
  bool recalibrate = false;
  int64_t quant_min = -32768;
  int64_t quant_max = 32767;
  std::map<const void*, std::string> module_paths;  // module object -> instance path
  std::map<std::string, PointState> points;
  std::vector<ProbeState> probes;
  std::vector<RunJudgedAtEnd> judged_at_end;  // this batch's, until its forward returns
  std::map<std::string, Observer> observed;   // Options::calibrate_values, by value position
  std::vector<ir::SourceLoc> sites;           // by the site id the instrumenter gives each quant point op
  std::vector<std::string> reach_order;       // quant points, as the float run first reached them
  bool weights_quantized = false;             // a QAT layer's weight fake quant ran
  // Values the float run's activation quant points quantized, over every batch: the size of a
  // simulated pass, from which attribution's default budget of passes follows.
  int64_t point_values = 0;
  // Set during an attribution pass: only these quant points quantize, the others pass their
  // float values through (sim/attribution.h). Null: all of them.
  const std::set<std::string>* quantized = nullptr;
  bool weights_in_float = false;  // during an attribution pass that keeps the weights in float
  // Options::layers, during the float run and the simulated run (not attribution's passes).
  LayerRecorder* layers = nullptr;
  // Where each submodule is called (module path -> the calls' lines): the user's lines of a
  // converted model's quantized kernels, which run in PyTorch's own module code.
  std::map<std::string, std::vector<ir::SourceLoc>> call_sites;
  size_t threads = 1;    // batches run at once (Options::threads, when the model allows it)
  std::string in_order;  // why not, when Options::threads asked for more (Report::batches_in_order)
};

// ---- Batches at once --------------------------------------------------------------------------
// Each batch of a parallel run records into a session of its own, forked from the run's
// session; the forks are then absorbed in batch order, which gives what running the batches
// one after another in that session would have given.

// A probe's state for one batch: its float results of that batch (a simulated run compares
// with them), no counts yet.
ProbeState probe_for_batch(const ProbeState& probe, size_t batch) {
  ProbeState fork;
  fork.kind = probe.kind;
  fork.loc = probe.loc;
  fork.functions = probe.functions;
  fork.copy = probe.copy;
  fork.copies = probe.copies;
  fork.constant = probe.constant;
  fork.integer_result = probe.integer_result;
  fork.set_dim = probe.set_dim;
  fork.judged_at_end = probe.judged_at_end;
  if (batch < probe.float_runs.size()) {
    fork.float_runs.resize(batch + 1);
    fork.float_runs[batch] = probe.float_runs[batch];
  }
  return fork;
}

std::vector<Session> fork_for_batches(Session& session, size_t batches) {
  std::vector<ProbeState> probes = std::move(session.probes);
  session.probes.clear();
  std::vector<Session> forks(batches, session);
  session.probes = std::move(probes);
  for (size_t b = 0; b < batches; ++b) {
    forks[b].batch = b;
    forks[b].reach_order.clear();
    forks[b].weights_quantized = false;
    forks[b].point_values = 0;
    forks[b].probes.reserve(session.probes.size());
    for (const ProbeState& probe : session.probes) forks[b].probes.push_back(probe_for_batch(probe, b));
  }
  return forks;
}

// A converted model's int8 point is set up by the first batch that reaches it (int8_point_op);
// a traced FakeQuantize's stored scale is read again at every reach, so the last batch's counts.
void absorb_point(PointState& into, const PointState& fork) {
  const bool int8 = !fork.op.empty() || !into.op.empty();
  const bool first = !into.reached && fork.reached;
  if (first || (fork.reached && !int8 && fork.stored)) {
    into.path = fork.path;
    into.stored = fork.stored;
    into.scale = fork.scale;
    into.zero_point = fork.zero_point;
    into.quant_min = fork.quant_min;
    into.quant_max = fork.quant_max;
    into.op = fork.op;
  }
  if (int8) {
    if (first) into.sites = fork.sites;
  } else {
    for (const auto& site : fork.sites)
      if (std::find(into.sites.begin(), into.sites.end(), site) == into.sites.end()) into.sites.push_back(site);
  }
  into.reached = into.reached || fork.reached;
  into.observer.merge(fork.observer);
}

void absorb_probe(ProbeState& into, ProbeState& fork, size_t batch, Mode mode) {
  if (mode == Mode::Float && batch < fork.float_runs.size()) {
    if (into.float_runs.size() <= batch) into.float_runs.resize(batch + 1);
    into.float_runs[batch] = std::move(fork.float_runs[batch]);
  }
  if (batch < fork.simulated_runs.size()) {
    if (into.simulated_runs.size() <= batch) into.simulated_runs.resize(batch + 1);
    into.simulated_runs[batch] = fork.simulated_runs[batch];
  }
  into.elements += fork.elements;
  into.differing += fork.differing;
  into.runs_not_compared += fork.runs_not_compared;
  into.operand_only_zero_or_constant = into.operand_only_zero_or_constant && fork.operand_only_zero_or_constant;
}

void absorb(Session& into, Session& fork) {
  for (const std::string& path : fork.reach_order)
    if (!into.points[path].reached) into.reach_order.push_back(path);
  for (const auto& [path, point] : fork.points) absorb_point(into.points[path], point);
  for (size_t i = 0; i < into.probes.size() && i < fork.probes.size(); ++i)
    absorb_probe(into.probes[i], fork.probes[i], fork.batch, into.mode);
  for (const auto& [value, observer] : fork.observed) into.observed[value].merge(observer);
  into.weights_quantized = into.weights_quantized || fork.weights_quantized;
  into.point_values += fork.point_values;
}

thread_local Session* g_session = nullptr;

// Makes the custom operators work for `session` while alive, on this thread.
struct ActiveSession {
  explicit ActiveSession(Session& s) : previous(g_session) { g_session = &s; }
  ~ActiveSession() { g_session = previous; }
  ActiveSession(const ActiveSession&) = delete;
  ActiveSession& operator=(const ActiveSession&) = delete;
  Session* previous;
};

std::string path_of(const IValue& module) {
  if (module.isString()) return module.toStringRef();  // an inline fake quant, named by its value
  if (!module.isObject()) return "?";
  auto it = g_session->module_paths.find(module.toObject().get());
  return it == g_session->module_paths.end() ? "?" : it->second;
}

PointState& point_for(const std::string& path) {
  PointState& p = g_session->points[path];
  p.path = path;
  return p;
}

PointState& point_for(const IValue& module) { return point_for(path_of(module)); }

// The float run reaches the quant point from the op at `site` with `x`: its order, where it is,
// its range, and the values it quantizes (what a pass costs: Session::point_values).
void note_reached(PointState& p, int64_t site, const at::Tensor& x) {
  if (!p.reached) g_session->reach_order.push_back(p.path);
  p.reached = true;
  p.observer.observe(x);
  g_session->point_values += x.numel();
  if (site < 0 || static_cast<size_t>(site) >= g_session->sites.size()) return;
  const ir::SourceLoc& loc = g_session->sites[static_cast<size_t>(site)];
  if (std::find(p.sites.begin(), p.sites.end(), loc) == p.sites.end()) p.sites.push_back(loc);
}

const ir::SourceLoc& site_location(int64_t site) {
  static const ir::SourceLoc unknown;
  if (site < 0 || static_cast<size_t>(site) >= g_session->sites.size()) return unknown;
  return g_session->sites[static_cast<size_t>(site)];
}

// The site's location in the user's code: PyTorch's own module code (a scripted converted
// model's kernels, nn.Sequential's calls of its children) is no line the user can change.
ir::SourceLoc user_site_location(int64_t site) {
  const ir::SourceLoc& loc = site_location(site);
  return ir::is_pytorch_file(loc.file) ? ir::SourceLoc{} : loc;
}

// Options::layers: the value of a quant point or a module call, in the run the session is in.
void record_layer(LayerResult::Kind kind, const std::string& path, int64_t site, const at::Tensor& value) {
  if (g_session->layers == nullptr) return;
  if (g_session->mode == Mode::Float)
    g_session->layers->record_float(kind, path, user_site_location(site), g_session->batch, value);
  else
    g_session->layers->record_simulated(kind, path, g_session->batch, value);
}

// The simulated value at a quant point: fake quantized, unless an attribution pass keeps this
// point in float.
at::Tensor fake_quantize(const at::Tensor& x, const PointState& p) {
  if (g_session->quantized != nullptr && g_session->quantized->count(p.path) == 0) return x;
  return at::fake_quantize_per_tensor_affine(x, p.scale, p.zero_point, p.quant_min, p.quant_max);
}

// qlint::quant_point(Tensor x, Any stub, int site) -> Tensor: inserted after each QuantStub call.
void quant_point_op(jit::Stack& stack) {
  int64_t site = jit::pop(stack).toInt();
  IValue stub = jit::pop(stack);
  at::Tensor x = jit::pop(stack).toTensor();
  PointState& p = point_for(stub);
  if (g_session->mode == Mode::Float) {
    note_reached(p, site, x);
    record_layer(LayerResult::Kind::QuantPoint, p.path, site, x);
    jit::push(stack, x);
    return;
  }
  at::Tensor quantized = fake_quantize(x, p);
  record_layer(LayerResult::Kind::QuantPoint, p.path, site, quantized);
  jit::push(stack, quantized);
}

double scalar_of(const IValue& v) { return v.isTensor() ? v.toTensor().item<double>() : v.toDouble(); }
int64_t int_of(const IValue& v) { return v.isTensor() ? v.toTensor().item<int64_t>() : v.toInt(); }

// Whether the run fake-quantizes a QAT layer's weights: the simulated run does (and notes that it
// did, for attribution), the float run and an attribution pass with float weights do not.
bool weights_quantized_in_this_run() {
  if (g_session->mode == Mode::Simulate) g_session->weights_quantized = true;
  return !(g_session->mode == Mode::Float || g_session->weights_in_float);
}

// qlint::stored_quant_point(Tensor x, Any module, Any scale, Any zero_point, int quant_min,
// int quant_max, int site) -> Tensor: replaces a traced FakeQuantize's fake_quantize op.
void stored_quant_point_op(jit::Stack& stack) {
  int64_t site = jit::pop(stack).toInt();
  int64_t quant_max = jit::pop(stack).toInt();
  int64_t quant_min = jit::pop(stack).toInt();
  IValue zero_point = jit::pop(stack);
  IValue scale = jit::pop(stack);
  IValue module = jit::pop(stack);
  at::Tensor x = jit::pop(stack).toTensor();
  const std::string path = path_of(module);
  if (analysis::is_weight_quantizer(path)) {
    // A QAT layer's weight fake quant: float weights in the float run, quantized ones with the
    // model's stored parameters in the simulated run; a weight, not a quant point to report.
    if (weights_quantized_in_this_run())
      x = at::fake_quantize_per_tensor_affine(x, scalar_of(scale), int_of(zero_point), quant_min, quant_max);
    jit::push(stack, x);
    return;
  }
  PointState& p = point_for(path);
  if (g_session->mode == Mode::Float) {
    note_reached(p, site, x);
    if (!g_session->recalibrate) {
      p.stored = true;
      p.scale = scalar_of(scale);
      p.zero_point = int_of(zero_point);
      p.quant_min = quant_min;
      p.quant_max = quant_max;
    }
    record_layer(LayerResult::Kind::QuantPoint, p.path, site, x);
    jit::push(stack, x);
    return;
  }
  at::Tensor quantized = fake_quantize(x, p);
  record_layer(LayerResult::Kind::QuantPoint, p.path, site, quantized);
  jit::push(stack, quantized);
}

constexpr size_t kMaxRunsPerBatch = 4096;

// An integer result probe's op ran on float values and gave integers or bools: a cast of a float
// tensor (not one of a float to float, nor of indices to another integer dtype), argmax of
// floats, or of a converted model's quantized tensor. Known only at run time: a scripted graph
// leaves most dtypes open.
bool decided_by_float_values(const at::Tensor& result, const IValue& source) {
  if (result.is_floating_point() || result.is_complex() || result.is_quantized() || !source.isTensor()) return false;
  const at::Tensor& values = source.toTensor();
  return values.is_floating_point() || values.is_quantized();
}

// Two picks of indices along `dim` (topk's, the boxes NMS keeps) compared as sets, row by row:
// the elements compared (the larger pick's size in each row) and those of them the other pick
// lacks. nullopt when the rows differ in number, or the comparison would take too much memory.
std::optional<std::pair<int64_t, int64_t>> set_difference(const at::Tensor& expected, const at::Tensor& got,
                                                          int64_t dim) {
  if (expected.dim() != got.dim() || expected.dim() == 0) return std::nullopt;
  const int64_t d = dim < 0 ? dim + expected.dim() : dim;
  if (d < 0 || d >= expected.dim()) return std::nullopt;
  at::Tensor f = expected.movedim(d, -1), s = got.movedim(d, -1);
  if (f.sizes().slice(0, f.dim() - 1) != s.sizes().slice(0, s.dim() - 1)) return std::nullopt;
  const int64_t rows = f.numel() == 0 ? s.numel() / std::max<int64_t>(1, s.size(-1)) : f.numel() / f.size(-1);
  const int64_t kf = f.size(-1), ks = s.size(-1), larger = std::max(kf, ks);
  constexpr int64_t kMaxPairs = 64 << 20;
  if (rows * kf * ks > kMaxPairs) return std::nullopt;
  const int64_t shared =
      kf == 0 || ks == 0 ? 0 : at::eq(s.unsqueeze(-1), f.unsqueeze(-2)).any(-1).sum().item<int64_t>();
  return std::make_pair(rows * larger, rows * larger - shared);
}

// Two results whose order along `dim` a pick before them decided, compared as multisets row by
// row: the elements compared and those of the simulated row that float's row lacks (the same
// picks in another order differ nowhere). nullopt when the sizes differ.
std::optional<std::pair<int64_t, int64_t>> multiset_difference(const at::Tensor& expected, const at::Tensor& got,
                                                               int64_t dim) {
  if (expected.sizes() != got.sizes() || expected.dim() == 0) return std::nullopt;
  const int64_t d = dim < 0 ? dim + expected.dim() : dim;
  if (d < 0 || d >= expected.dim()) return std::nullopt;
  const int64_t k = expected.size(d);
  if (k == 0) return std::make_pair(int64_t{0}, int64_t{0});
  auto rows = [&](const at::Tensor& t) {
    return std::get<0>(t.movedim(d, -1).to(at::kDouble).reshape({-1, k}).sort(-1)).contiguous();
  };
  const at::Tensor f = rows(expected), s = rows(got);
  const double* fp = f.data_ptr<double>();
  const double* sp = s.data_ptr<double>();
  int64_t shared = 0;
  for (int64_t r = 0; r < f.size(0); ++r) {
    const double* a = fp + r * k;
    const double* b = sp + r * k;
    for (int64_t i = 0, j = 0; i < k && j < k;) {
      if (a[i] == b[j]) {
        ++shared, ++i, ++j;
      } else if (a[i] < b[j]) {
        ++i;
      } else {
        ++j;
      }
    }
  }
  return std::make_pair(f.numel(), f.numel() - shared);
}

// Judges one simulated run of a probe against the float run's same run. Results that cannot be
// paired with float's are not counted as flips: another shape than float's (rows a flipped
// threshold before it let through), an integer result decided on values of another shape, or a
// run float never made (a loop whose count depends on quantized values). A decision before this
// one changed what reaches it, and every row that passes both thresholds may agree.
void compare_run(ProbeState& probe, const FloatRun& expected, const at::Tensor& x, const IValue& operand,
                 std::optional<int64_t> pick_order_dim) {
  const bool same_operand =
      !probe.integer_result || operand.toTensor().sizes() == at::IntArrayRef(expected.operand_sizes);
  std::optional<std::pair<int64_t, int64_t>> counted;
  if (same_operand && probe.set_dim)
    counted = set_difference(expected.result, x, *probe.set_dim);
  else if (same_operand && pick_order_dim)
    counted = multiset_difference(expected.result, x, *pick_order_dim);
  else if (same_operand && expected.result.sizes() == x.sizes())
    counted = std::make_pair(x.numel(), at::ne(x, expected.result).sum().item<int64_t>());
  if (!counted) {
    ++probe.runs_not_compared;
    return;
  }
  probe.elements += counted->first;
  probe.differing += counted->second;
}

// The dimension along which `x`, a result of `probe`, holds its elements in the order of the
// pick it follows (ProbeState::ordered_by): when it has that pick's sizes, as a value computed
// element by element from the pick's indices or values has.
std::optional<int64_t> pick_order(const ProbeState& probe, const at::Tensor& x) {
  if (!probe.ordered_by) return std::nullopt;
  const ProbeState& pick = g_session->probes.at(*probe.ordered_by);
  if (!pick.set_dim || pick.latest_sizes.empty() || x.sizes() != at::IntArrayRef(pick.latest_sizes))
    return std::nullopt;
  return pick.set_dim;
}

// qlint::probe(Tensor x, int id, Any operand) -> Tensor: inserted after each tensor
// comparison; `operand` is the tensor compared with a constant (None otherwise). Also after each
// op whose integer result float values decide (ProbeState::integer_result), with `operand` the
// values it decides on.
void probe_op(jit::Stack& stack) {
  IValue operand = jit::pop(stack);
  int64_t id = jit::pop(stack).toInt();
  at::Tensor x = jit::pop(stack).toTensor();
  ProbeState& probe = g_session->probes.at(static_cast<size_t>(id));
  if (probe.integer_result && !decided_by_float_values(x, operand)) {
    jit::push(stack, x);
    return;
  }
  if (probe.set_dim) probe.latest_sizes = x.sizes().vec();
  const size_t batch = g_session->batch;
  if (g_session->mode == Mode::Float) {
    if (probe.float_runs.size() <= batch) probe.float_runs.resize(batch + 1);
    // Bounded memory: a comparison in a very long loop is judged on its first runs.
    if (probe.float_runs[batch].size() < kMaxRunsPerBatch)
      probe.float_runs[batch].push_back({probe.judged_at_end ? x : x.clone(), probe.integer_result
                                                                                  ? operand.toTensor().sizes().vec()
                                                                                  : std::vector<int64_t>{}});
    if (probe.constant && operand.isTensor()) {
      const at::Tensor& v = operand.toTensor();
      bool only = at::logical_or(at::eq(v, 0), at::eq(v, *probe.constant)).all().item<bool>();
      probe.operand_only_zero_or_constant = probe.operand_only_zero_or_constant && only;
    }
  } else if (batch < probe.float_runs.size()) {
    if (probe.simulated_runs.size() <= batch) probe.simulated_runs.resize(batch + 1);
    const size_t run = probe.simulated_runs[batch]++;
    const std::vector<FloatRun>& expected = probe.float_runs[batch];
    if (run < expected.size() && probe.judged_at_end)
      g_session->judged_at_end.push_back({static_cast<size_t>(id), run, x, operand, pick_order(probe, x)});
    else if (run < expected.size())
      compare_run(probe, expected[run], x, operand, pick_order(probe, x));
    else if (expected.size() < kMaxRunsPerBatch)  // reached more often than in float: see compare_run
      ++probe.runs_not_compared;
  }
  jit::push(stack, x);
}

// qlint::observe(Tensor x, str value) -> Tensor: after a value that is to get a new quant
// point; the float run observes its range.
void observe_op(jit::Stack& stack) {
  std::string value = jit::pop(stack).toStringRef();
  at::Tensor x = jit::pop(stack).toTensor();
  if (g_session->mode == Mode::Float) g_session->observed[value].observe_with_whole_numbers(x);
  jit::push(stack, x);
}

// qlint::layer(Tensor x, Any module, int site) -> Tensor: after a submodule's forward call,
// with --layers. A FakeQuantize's call is its quant point's row already, a weight's is no layer.
void layer_op(jit::Stack& stack) {
  int64_t site = jit::pop(stack).toInt();
  IValue module = jit::pop(stack);
  const at::Tensor& x = stack.back().toTensor();
  const std::string path = path_of(module);
  auto point = g_session->points.find(path);
  bool quant_point = point != g_session->points.end() && point->second.op.empty();
  if (!quant_point && !analysis::is_weight_quantizer(path)) record_layer(LayerResult::Kind::Module, path, site, x);
}

// The integer range of a quantized dtype.
std::pair<int64_t, int64_t> quantized_range(at::ScalarType type) {
  switch (type) {
    case at::kQUInt8:
      return {0, 255};
    case at::kQInt8:
      return {-128, 127};
    default:
      return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
  }
}

// qlint::int8_point(Tensor x, Any module, str value, str op, int site) -> Tensor: after a
// converted model's quantize op or quantized kernel. Its output's own scale and zero point are
// the quant point's, named by the module whose forward ran it (`module` is None when that
// forward has several) or else by the value.
void int8_point_op(jit::Stack& stack) {
  int64_t site = jit::pop(stack).toInt();
  std::string op = jit::pop(stack).toStringRef();
  std::string value = jit::pop(stack).toStringRef();
  IValue module = jit::pop(stack);
  const at::Tensor& x = stack.back().toTensor();
  if (!x.is_quantized() || x.qscheme() != at::kPerTensorAffine) return;  // a dynamic kernel's float output
  std::string path = module.isObject() ? path_of(module) : "";
  if (path.empty() || path == "?") path = value;
  PointState& p = point_for(path);
  if (!p.reached) {
    p.reached = p.stored = true;
    p.op = op;
    p.scale = x.q_scale();
    p.zero_point = x.q_zero_point();
    std::tie(p.quant_min, p.quant_max) = quantized_range(x.scalar_type());
    ir::SourceLoc own = user_site_location(site);
    if (own.known())
      p.sites.push_back(own);
    else if (auto calls = g_session->call_sites.find(path); calls != g_session->call_sites.end())
      p.sites = calls->second;
  }
  p.observer.observe(x.dequantize());
}

// qlint::weight_fake_quant(Tensor quantized, Tensor x) -> Tensor: after a per-channel fake quant
// (the default QAT qconfig's weights): its float input in the float run, as PyTorch's float model
// (`disable_fake_quant`) computes, and its own result in the simulated one. Before, it ran in both,
// so the float reference kept rounded weights with the default qconfig and not with a plain one
// (public round 22: NanoDet "4 boxes in float" where PyTorch's float model keeps 3).
void weight_fake_quant_op(jit::Stack& stack) {
  at::Tensor x = jit::pop(stack).toTensor();
  at::Tensor quantized = jit::pop(stack).toTensor();
  jit::push(stack, weights_quantized_in_this_run() ? quantized : x);
}

jit::RegisterOperators g_ops({
    jit::Operator("qlint::quant_point(Tensor x, Any stub, int site) -> Tensor", quant_point_op,
                  c10::AliasAnalysisKind::CONSERVATIVE),
    jit::Operator("qlint::stored_quant_point(Tensor x, Any module, Any scale, Any zero_point, "
                  "int quant_min, int quant_max, int site) -> Tensor",
                  stored_quant_point_op, c10::AliasAnalysisKind::CONSERVATIVE),
    jit::Operator("qlint::probe(Tensor x, int id, Any operand) -> Tensor", probe_op,
                  c10::AliasAnalysisKind::CONSERVATIVE),
    jit::Operator("qlint::observe(Tensor x, str value) -> Tensor", observe_op, c10::AliasAnalysisKind::CONSERVATIVE),
    jit::Operator("qlint::weight_fake_quant(Tensor quantized, Tensor x) -> Tensor", weight_fake_quant_op,
                  c10::AliasAnalysisKind::CONSERVATIVE),
    jit::Operator("qlint::layer(Tensor x, Any module, int site) -> Tensor", layer_op,
                  c10::AliasAnalysisKind::CONSERVATIVE),
    jit::Operator("qlint::int8_point(Tensor x, Any module, str value, str op, int site) -> Tensor", int8_point_op,
                  c10::AliasAnalysisKind::CONSERVATIVE),
});

// ---- Instrumenting the graphs ---------------------------------------------------------------

bool is_comparison(const jit::Node& n) {
  static const std::set<std::string> ops = {"aten::eq", "aten::ne", "aten::lt", "aten::le", "aten::gt", "aten::ge"};
  return ops.count(n.kind().toQualString()) && n.outputs().size() == 1 && n.output()->type()->cast<c10::TensorType>();
}

// Whether `user` writes the constant `threshold` into `x` where `mask` holds: `x.masked_fill_(mask,
// c)`, `torch.where(mask, c, x)`, `x[mask] = c` (index_put_ of the list of `mask`).
bool writes_threshold_where(const jit::Node& user, const jit::Value* x, const jit::Value* mask, double threshold) {
  auto is_threshold = [threshold](const jit::Value* v) {
    auto c = jit::toIValue(v);
    if (c && c->isTensor() && c->toTensor().numel() == 1) return c->toTensor().item<double>() == threshold;
    return c && (c->isDouble() || c->isInt()) && c->toScalar().toDouble() == threshold;
  };
  const std::string op = user.kind().toUnqualString();
  if (user.inputs().size() < 3) return false;
  if (op == "masked_fill" || op == "masked_fill_")
    return user.input(0) == x && user.input(1) == mask && is_threshold(user.input(2));
  if (op == "where") return user.input(0) == mask && is_threshold(user.input(1)) && user.input(2) == x;
  return (op == "index_put" || op == "index_put_") && user.input(0) == x && is_threshold(user.input(2));
}

// analysis::is_hand_written_clamp on the graph that runs (`wh[wh < 0] = 0`): a flip there moves
// the value by no more than the rounding that flipped it, so it is not probed as a decision.
bool is_hand_written_clamp(const jit::Node& comparison) {
  const std::string op = comparison.kind().toUnqualString();
  if ((op != "lt" && op != "le" && op != "gt" && op != "ge") || comparison.inputs().size() < 2) return false;
  auto threshold = jit::toIValue(comparison.input(1));
  if (!threshold || !(threshold->isDouble() || threshold->isInt()) || comparison.output()->uses().empty()) return false;
  const double c = threshold->toScalar().toDouble();
  for (const jit::Use& use : comparison.output()->uses()) {
    const jit::Node* user = use.user;
    if (user->kind() == c10::prim::ListConstruct && user->inputs().size() == 1 && !user->output()->uses().empty()) {
      for (const jit::Use& write : user->output()->uses())
        if (!writes_threshold_where(*write.user, comparison.input(0), user->output(), c)) return false;
      continue;
    }
    if (!writes_threshold_where(*user, comparison.input(0), comparison.output(), c)) return false;
  }
  return true;
}

// Every node of `block` and of the blocks nested in it, in order.
void collect_nodes(jit::Block* block, std::vector<jit::Node*>& out) {
  for (jit::Node* n : block->nodes()) {
    out.push_back(n);
    for (jit::Block* inner : n->blocks()) collect_nodes(inner, out);
  }
}

// Instruments a copy of the model through the graph rewriter: an observer/fake-quantize op after
// every quant point, a probe after every comparison.
class Instrumenter {
 public:
  Instrumenter(Session& session, const analysis::StubClasses& stubs, torchscript::SourceLines& lines,
               torchscript::GraphRewriter& rewriter)
      : session_(session), stubs_(stubs), lines_(lines), rewriter_(rewriter) {}

  // For a second copy of the same model (a converted model's int8 side): its comparisons get
  // the probes the first copy registered, in the same order.
  void reuse_probes() { reused_probes_ = 0; }

  // Options::layers: a layer op after every submodule call.
  void record_layers() { layers_ = true; }

  // Values to observe for Options::calibrate_values, by their positions.
  void observe(const std::vector<ValueToCalibrate>& values) {
    for (const auto& v : values) observe_.insert(v.value);
  }

  void module(const jit::Module& root) {
    // Instances of one class share their method graphs, which the IR names after one of them.
    for (const auto& m : root.named_modules())
      for (const auto& method : m.value.get_methods())
        graph_names_[method.graph().get()].push_back(ir::qualified_function_name(m.name, method.name()));
    for (const auto& [graph, names] : graph_names_)
      for (const std::string& name : names) instance_names_[name] = names;
    for (const auto& m : root.named_modules()) {
      session_.module_paths[m.value._ivalue().get()] = m.name;
      for (const auto& method : m.value.get_methods()) {
        note_call_sites(m.name, *method.graph());
        graph(method.graph(), ir::qualified_function_name(m.name, method.name()));
      }
    }
    if (!reused_probes_)
      for (ProbeState& probe : session_.probes)
        for (const std::string& function : probe.functions)
          if (auto seen =
                  copies_seen_.find(analysis::copy_key(function, analysis::comparison_key(probe.kind, probe.loc)));
              seen != copies_seen_.end())
            probe.copies = seen->second;
  }

 private:
  // Session::call_sites of the submodules that the graph of the module at `owner` calls as
  // `self.name(...)`. Per module instance: instances of one class share their graphs.
  void note_call_sites(const std::string& owner, jit::Graph& g) {
    if (g.inputs().empty()) return;
    std::vector<jit::Node*> nodes;
    collect_nodes(g.block(), nodes);
    for (jit::Node* n : nodes) {
      if (n->kind() != c10::prim::CallMethod || n->inputs().empty()) continue;
      std::optional<std::string> callee = attribute_path(n->input(0), g.inputs()[0]);
      if (!callee) continue;
      ir::SourceLoc loc = torchscript::source_location(*n, lines_);
      std::vector<ir::SourceLoc>& sites = session_.call_sites[owner.empty() ? *callee : owner + "." + *callee];
      if (loc.known() && std::find(sites.begin(), sites.end(), loc) == sites.end()) sites.push_back(loc);
    }
  }

  // "features.0" for `self.features.0` (GetAttr on GetAttr on `self`); nullopt for any other value.
  static std::optional<std::string> attribute_path(jit::Value* v, const jit::Value* self) {
    std::string path;
    while (v != self) {
      jit::Node* attribute = v->node();
      if (attribute->kind() != c10::prim::GetAttr) return std::nullopt;
      path = attribute->s(jit::attr::name) + (path.empty() ? "" : "." + path);
      v = attribute->input(0);
    }
    if (path.empty()) return std::nullopt;
    return path;
  }

  static bool is_int8_output(const jit::Node& n) {
    return is_int8_op(n.kind().toQualString()) && n.outputs().size() == 1 &&
           n.output()->type()->cast<c10::TensorType>();
  }

  // `function`: the graph's name in qlint's IR, which names values as "function:%value".
  void graph(const std::shared_ptr<jit::Graph>& g, const std::string& function) {
    if (!visited_.insert(g.get()).second) return;
    std::vector<jit::Node*> nodes;
    collect_nodes(g->block(), nodes);
    function_ = function;
    int8_outputs_ = std::count_if(nodes.begin(), nodes.end(), [](jit::Node* n) { return is_int8_output(*n); });
    // Before the nodes are instrumented, which replaces some of them (and their values' names).
    observe_values(*g);
    for (jit::Node* n : nodes) instrument(*g, n);
  }

  // Values are named by position (torchscript::value_positions): this graph is a copy of the
  // one they were named in, and copies renumber the values that have no name of their own.
  // A graph shared by several instances is observed under whichever instance's name the value
  // was asked for.
  void observe_values(jit::Graph& g) {
    if (observe_.empty()) return;
    auto shared = graph_names_.find(&g);
    const std::vector<std::string> names =
        shared == graph_names_.end() ? std::vector<std::string>{function_} : shared->second;
    for (const auto& [value, position] : torchscript::value_positions(g)) {
      auto* v = const_cast<jit::Value*>(value);
      if (!v->type()->cast<c10::TensorType>()) continue;
      for (const std::string& name : names)
        if (observe_.count(name + ":" + position)) {
          rewriter_.insert_after_value(v, "qlint::observe", {IValue(name + ":" + position)});
          break;
        }
    }
  }

  // A trace records a Python float operand (`coords * 0.5`) as a 0-dim double tensor constant,
  // which the archive keeps without its "wrapped number" mark. Unmarked, it promotes an integer
  // operand to double (`long * 0.5` is float32 in PyTorch, double here), and the model fails
  // further on ("expected scalar type Double but found Float"); PyTorch's optimising executor,
  // which the simulation turns off, hides this. The mark restores what the traced code did.
  static void restore_wrapped_number(jit::Node& constant) {
    if (!constant.hasAttribute(jit::attr::value) || constant.kindOf(jit::attr::value) != jit::AttributeKind::t) return;
    const at::Tensor& value = constant.t(jit::attr::value);
    if (value.dim() != 0 || value.scalar_type() != at::kDouble || value.requires_grad() ||
        value.unsafeGetTensorImpl()->is_wrapped_number())
      return;
    at::Tensor wrapped = value.clone();  // the clone's own: the caller's model stays as it was
    wrapped.unsafeGetTensorImpl()->set_wrapped_number(true);
    constant.t_(jit::attr::value, wrapped);
  }

  void instrument(jit::Graph& g, jit::Node* n) {
    std::string kind = n->kind().toQualString();
    if (kind == "prim::Constant") {
      restore_wrapped_number(*n);
    } else if (kind == "prim::CallFunction") {
      // The model is a clone that shares its free functions with the original: instrument a
      // copy of each, so the original stays as it was.
      auto type = n->input(0)->type()->cast<c10::FunctionType>();
      std::string name = type ? type->function()->qualname().qualifiedName() : "";
      std::string caller = function_;
      std::ptrdiff_t caller_int8_outputs = int8_outputs_;
      if (auto callee = rewriter_.own_copy_of_callee(n)) graph(callee, name);
      function_ = caller;
      int8_outputs_ = caller_int8_outputs;
    } else if (kind == "prim::CallMethod" && is_quant_stub(n->input(0)) && n->inputs().size() == 2 &&
               n->output()->type()->cast<c10::TensorType>()) {
      rewriter_.insert_after(n, "qlint::quant_point", {n->output(), n->input(0), site(n)});
    } else if (layers_ && is_module_call(*n)) {
      rewriter_.insert_after(n, "qlint::layer", {n->output(), n->input(0), site(n)});
    } else if (is_int8_output(*n)) {
      note_int8_point(g, n);
    } else if (const analysis::QuantOpOperands* operands = per_tensor_fake_quantize(*n)) {
      replace_fake_quantize(g, n, *operands);
    } else if (fake_quantize(*n)) {  // per channel: weights
      rewriter_.insert_after(n, "qlint::weight_fake_quant", {n->output(), n->input(0)});
    } else if (const int output = decision_output(*n); output >= 0) {
      ProbeState probe = new_probe(kind, *n);
      probe.integer_result = true;
      probe.judged_at_end = written_in_place_later(*n->outputs()[static_cast<size_t>(output)]);
      if (analysis::picks_a_set(kind)) probe.set_dim = set_dimension(*n);
      probe.ordered_by = pick_followed(n->input(0));
      jit::Value* id = probe_id(n, probe);
      if (probe.set_dim && !reused_probes_) picks_[n] = session_.probes.size() - 1;
      rewriter_.insert_after_output(n, static_cast<size_t>(output), "qlint::probe",
                                    {n->outputs()[static_cast<size_t>(output)], id, n->input(0)});
    } else if (is_comparison(*n) && !is_hand_written_clamp(*n)) {
      ProbeState probe = new_probe(kind, *n);
      probe.judged_at_end = written_in_place_later(*n->output());
      jit::Value* operand = nullptr;
      for (size_t side = 0; side < 2 && n->inputs().size() >= 2; ++side) {
        auto constant = jit::toIValue(n->input(1 - side));
        if (constant && (constant->isDouble() || constant->isInt()) &&
            n->input(side)->type()->cast<c10::TensorType>()) {
          probe.constant = constant->toScalar().toDouble();
          operand = n->input(side);
        }
      }
      probe.ordered_by = pick_followed(operand != nullptr ? operand : n->input(0));
      jit::Value* id = probe_id(n, probe);
      if (operand == nullptr) operand = rewriter_.insert_constant(n, IValue());
      rewriter_.insert_after(n, "qlint::probe", {n->output(), id, operand});
    }
  }

  // Whether the model writes into `v` in place further on, or into a view of it (`cell[~inside]
  // = 0`, `grid += 1`): by the ops' schemas, an argument written (`Tensor(a!)`) or a view
  // returned (`Tensor(a)`) and written.
  static bool written_in_place_later(const jit::Value& v, int depth = 0) {
    if (depth > kMaxViewDepth) return false;
    for (const jit::Use& use : v.uses()) {
      const c10::FunctionSchema* schema = use.user->maybeSchema();
      if (schema == nullptr || use.offset >= schema->arguments().size()) continue;
      const c10::AliasInfo* alias = schema->arguments()[use.offset].alias_info();
      if (alias == nullptr) continue;
      if (alias->isWrite()) return true;
      for (size_t i = 0; i < schema->returns().size() && i < use.user->outputs().size(); ++i) {
        const c10::AliasInfo* returned = schema->returns()[i].alias_info();
        if (returned != nullptr && returned->beforeSets() == alias->beforeSets() &&
            written_in_place_later(*use.user->outputs()[i], depth + 1))
          return true;
      }
    }
    return false;
  }

  // The pick (topk, NMS) in whose order `v` may hold its elements (ProbeState::ordered_by): found
  // back through each op's first operand (a gather's index: what it gathers comes in the index's
  // order), past the probes and quant points on the way. Whether `v` really keeps that order is
  // judged at run time, by its sizes.
  std::optional<size_t> pick_followed(const jit::Value* v) const {
    for (int depth = 0; depth < kMaxPickDistance && v != nullptr; ++depth) {
      const jit::Node* n = v->node();
      if (auto pick = picks_.find(n); pick != picks_.end()) return pick->second;
      if (n->inputs().empty()) return std::nullopt;
      const bool gather = n->kind() == c10::aten::gather && n->inputs().size() >= 3;
      v = n->input(gather ? 2 : 0);
    }
    return std::nullopt;
  }

  // The dimension topk picks along (its third operand, -1 when not a constant); NMS picks boxes.
  static int64_t set_dimension(const jit::Node& n) {
    if (n.kind().toQualString() != std::string("aten::topk")) return 0;
    if (n.inputs().size() > 2)
      if (auto dim = jit::toIValue(n.input(2)); dim && dim->isInt()) return dim->toInt();
    return -1;
  }

  ProbeState new_probe(const std::string& kind, const jit::Node& n) {
    ProbeState probe;
    probe.kind = kind;
    probe.loc = torchscript::source_location(n, lines_);
    auto shared = instance_names_.find(function_);
    probe.functions = shared == instance_names_.end() ? std::vector<std::string>{function_} : shared->second;
    probe.copy = copies_seen_[analysis::copy_key(function_, analysis::comparison_key(kind, probe.loc))]++;
    return probe;
  }

  // The id of a new probe, as a constant before `n`: the probe registered in the session, or on
  // a second copy of the model the one the first copy registered at the same place.
  jit::Value* probe_id(jit::Node* n, const ProbeState& probe) {
    int64_t id = 0;
    if (reused_probes_) {
      id = static_cast<int64_t>((*reused_probes_)++);
    } else {
      session_.probes.push_back(probe);
      id = static_cast<int64_t>(session_.probes.size() - 1);
    }
    return rewriter_.insert_constant(n, id);
  }

  // The output of `n` that holds a decision taken on float values (analysis::decision_output),
  // or -1: for ops with a tensor input and such an output (`max` over a dim, not of a whole tensor)
  // that the model reads (`x.max(dim=2).values` ignores its indices).
  static int decision_output(const jit::Node& n) {
    const int output = analysis::decision_output(n.kind().toQualString());
    if (output < 0 || static_cast<size_t>(output) >= n.outputs().size() || n.inputs().empty() ||
        !n.input(0)->type()->cast<c10::TensorType>() ||
        !n.outputs()[static_cast<size_t>(output)]->type()->cast<c10::TensorType>() ||
        !n.outputs()[static_cast<size_t>(output)]->hasUses())
      return -1;
    return output;
  }

  // A submodule's forward, giving a tensor.
  static bool is_module_call(const jit::Node& n) {
    return n.kind() == c10::prim::CallMethod && n.s(jit::attr::name) == "forward" && !n.inputs().empty() &&
           n.input(0)->type()->cast<c10::ClassType>() && n.outputs().size() == 1 &&
           n.output()->type()->cast<c10::TensorType>();
  }

  // A converted model's quantize op or quantized kernel: its output's scale and zero point are
  // a quant point (named by its module when that module's forward has no other, else by value).
  void note_int8_point(jit::Graph& g, jit::Node* n) {
    jit::Value* self = nullptr;
    if (int8_outputs_ == 1 && !g.inputs().empty() && g.inputs()[0]->type()->cast<c10::ClassType>())
      self = g.inputs()[0];
    else
      self = rewriter_.insert_constant(n, IValue());
    jit::Value* value = rewriter_.insert_constant(n, IValue(function_ + ":%" + n->output()->debugName()));
    jit::Value* op = rewriter_.insert_constant(n, IValue(std::string(n->kind().toQualString())));
    rewriter_.insert_after(n, "qlint::int8_point", {n->output(), self, value, op, site(n)});
  }

  bool is_quant_stub(const jit::Value* v) const {
    auto cls = v->type()->cast<c10::ClassType>();
    if (!cls || !cls->name()) return false;
    std::string name = analysis::normalize_class_name(cls->name()->qualifiedName());
    for (const auto& configured : stubs_.quant)
      if (analysis::class_name_matches(configured, name)) return true;
    return false;
  }

  // A traced FakeQuantize's op (plain or the default QAT qconfig's fused one) quantizing per
  // tensor: the ops qlint simulates with the scale stored in the model. Per-channel ones
  // quantize weights and run as they are.
  static const analysis::QuantOpOperands* per_tensor_fake_quantize(const jit::Node& n) {
    const analysis::QuantOpOperands* operands = analysis::quant_op_operands(n.kind().toQualString());
    if (operands == nullptr || !operands->fake || n.outputs().size() != 1) return nullptr;
    auto has = [&n](int index) { return index >= 0 && static_cast<size_t>(index) < n.inputs().size(); };
    if (!has(operands->scale) || !has(operands->zero_point) || !has(operands->quant_min) || !has(operands->quant_max) ||
        (operands->channel_axis >= 0 && !has(operands->channel_axis)))
      return nullptr;
    std::optional<int64_t> axis;
    if (operands->channel_axis >= 0)
      if (auto value = jit::toIValue(n.input(static_cast<size_t>(operands->channel_axis))); value && value->isInt())
        axis = value->toInt();
    return operands->per_tensor(axis) ? operands : nullptr;
  }

  // A fake quant op; past per_tensor_fake_quantize in instrument(), one that quantizes weights per
  // channel (the float run keeps its input, weight_fake_quant_op).
  static bool fake_quantize(const jit::Node& n) {
    const analysis::QuantOpOperands* operands = analysis::quant_op_operands(n.kind().toQualString());
    return operands != nullptr && operands->fake && n.outputs().size() == 1 && n.inputs().size() > 0;
  }

  // The FakeQuantize's module (its method's `self`) names the quant point; a fake quant with a
  // Python float as its scale (a FakeQuantize passes a tensor), written into a graph by qlint
  // --fix, is named by its value, as in the IR.
  // Replacing the op also freezes the fused op's observer: qlint's runs never change the
  // model's state.
  void replace_fake_quantize(jit::Graph& g, jit::Node* n, const analysis::QuantOpOperands& operands) {
    auto operand = [n](int index) { return n->input(static_cast<size_t>(index)); };
    jit::Value* self = g.inputs().empty() ? nullptr : g.inputs()[0];
    if (operand(operands.scale)->type()->kind() == c10::TypeKind::FloatType)
      self = rewriter_.insert_constant(n, IValue(function_ + ":%" + n->output()->debugName()));
    else if (self == nullptr || !self->type()->cast<c10::ClassType>())
      self = rewriter_.insert_constant(n, IValue());
    rewriter_.replace_with(n, "qlint::stored_quant_point",
                           {operand(0), self, operand(operands.scale), operand(operands.zero_point),
                            operand(operands.quant_min), operand(operands.quant_max), site(n)});
  }

  // The id of the quant point op's source location in the session (PointState::sites).
  jit::Value* site(jit::Node* n) {
    session_.sites.push_back(torchscript::source_location(*n, lines_));
    return rewriter_.insert_constant(n, static_cast<int64_t>(session_.sites.size() - 1));
  }

  Session& session_;
  const analysis::StubClasses& stubs_;
  torchscript::SourceLines& lines_;
  torchscript::GraphRewriter& rewriter_;
  std::set<const jit::Graph*> visited_;
  std::optional<size_t> reused_probes_;        // set: probes are reused, this is the next id
  std::map<const jit::Node*, size_t> picks_;   // each topk and NMS with its probe id
  static constexpr int kMaxPickDistance = 16;  // ops from a pick to a result that follows its order
  static constexpr int kMaxViewDepth = 16;     // views of a result to look through for a write into it
  std::string function_;                       // the graph being instrumented, as the IR names it
  std::set<std::string> observe_;
  std::map<const jit::Graph*, std::vector<std::string>> graph_names_;  // each method graph's instances
  std::map<std::string, std::vector<std::string>> instance_names_;     // the same by each one's name
  std::map<std::string, size_t> copies_seen_;  // probes so far of each line in each function (copy_key)
  bool layers_ = false;
  std::ptrdiff_t int8_outputs_ = 0;  // in the graph being instrumented
};

// ---- Running and comparing -----------------------------------------------------------------

OutputResult output_result(const ErrorStats& stats, size_t index) {
  OutputResult r;
  r.name = "output " + std::to_string(index);
  r.shape = stats.shape;
  r.max_abs_error = stats.max_abs;
  r.sqnr_db = stats.sqnr_db();
  r.cosine = stats.cosine();
  r.shape_difference = stats.shape_difference;
  r.elements = stats.elements;
  return r;
}

// A progress bar on stderr while the simulation runs, on a terminal only: from the start when
// many batches run, else once a run has taken a second (a large model, attribution's passes).
class ProgressLine {
 public:
  ProgressLine(bool enabled, size_t batches)
      : enabled_(enabled && isatty(STDERR_FILENO)), total_(batches), start_(std::chrono::steady_clock::now()) {}

  // `done` of the pass's batches are through; `phase` says which pass.
  void update(const std::string& phase, size_t done) {
    if (!enabled_ || !(total_ >= 10 || std::chrono::steady_clock::now() - start_ >= std::chrono::seconds(1))) return;
    constexpr size_t kWidth = 20;
    size_t filled = total_ == 0 ? kWidth : done * kWidth / total_;
    std::fprintf(stderr, "\r%s %zu/%zu batches [%s%s]\033[K", phase.c_str(), done, total_,
                 std::string(filled, '#').c_str(), std::string(kWidth - filled, '.').c_str());
    shown_ = true;
  }
  ~ProgressLine() {
    if (shown_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  bool enabled_;
  bool shown_ = false;
  size_t total_;
  std::chrono::steady_clock::time_point start_;
};

// The model's own error and the line of the user's code it came from, and which run it was: a
// trace fixes sizes its run saw (`topk(k)` with k from the quantized run's box count), which
// then fail in the other run.
std::string model_failed(const std::string& model_path, size_t batch, const std::string& what, Mode mode) {
  return ir::display_path(model_path) + ": the model failed on input batch " + std::to_string(batch + 1) +
         (mode == Mode::Float ? " in the float run (every quant point off)" : " in the quantized run") + ": " +
         ir::describe_script_error(what);
}

// A batch as one run may change it: forward writes into a dict it is given (a point-cloud
// model's `batch["voxels"] = self.quant(batch["voxels"])`) or into a tensor in place, and the next
// run (float, simulated, another attribution pass) must see the inputs as the file holds them.
Batch fresh_copy(const Batch& batch) {
  Batch copy;
  copy.reserve(batch.size());
  for (const IValue& v : batch) copy.push_back(v.deepcopy());
  return copy;
}

// The seed of LibTorch's random generator when a run of a batch starts (plus the batch's index).
constexpr uint64_t kRandomSeedOfBatch = 20261203;

// Every attribute of every module (parameters, buffers, plain values): copied deeply, so a run
// can start again from where the first one started (of), or only watched, to tell whether a
// run wrote any (watch).
class ModuleState {
 public:
  static ModuleState of(const jit::Module& root) { return take(root, /*copy=*/true); }
  static ModuleState watch(const jit::Module& root) { return take(root, /*copy=*/false); }

  // Whether a run changed an attribute since: set another value, wrote a tensor in place (its
  // version counter moves with every in-place op), or added to a list or dict.
  bool written() const {
    for (const auto& saved : saved_) {
      IValue current = saved.module.attr(saved.name);
      // A value held by pointer (a tensor, a list) must be the same object; a plain one (a
      // number, a device) the same value.
      const bool by_pointer =
          current.isTensor() || current.isList() || current.isGenericDict() || current.isTuple() || current.isObject();
      const bool same = by_pointer ? current.isSameIdentity(saved.live) : current == saved.live;
      if (!same || size_of(current) != saved.size) return true;
      if (current.isTensor() && current.toTensor().defined() && current.toTensor()._version() != saved.version)
        return true;
    }
    return false;
  }

  // Only after of().
  void restore() const {
    for (const auto& entry : saved_) {
      const jit::Module& module = entry.module;
      const std::string& name = entry.name;
      const IValue& value = entry.value;
      if (!value.isTensor()) {
        const_cast<jit::Module&>(module).setattr(name, value.deepcopy());
        continue;
      }
      // In place, so graphs holding the tensor (and parameters' identity) stay as they are.
      IValue current = module.attr(name);
      const at::Tensor& saved = value.toTensor();
      if (current.isTensor() && current.toTensor().defined() && saved.defined() &&
          current.toTensor().sizes() == saved.sizes() && current.toTensor().scalar_type() == saved.scalar_type() &&
          !saved.is_quantized()) {
        current.toTensor().copy_(saved);
      } else {
        const_cast<jit::Module&>(module).setattr(name, value.deepcopy());
      }
    }
  }

 private:
  static ModuleState take(const jit::Module& root, bool copy) {
    ModuleState state;
    for (const auto& m : root.named_modules())
      for (const auto& attribute : m.value.named_attributes(/*recurse=*/false)) {
        if (attribute.value.isModule()) continue;
        const IValue& live = attribute.value;
        state.saved_.push_back({m.value, attribute.name, copy ? live.deepcopy() : IValue(), live,
                                live.isTensor() && live.toTensor().defined() ? live.toTensor()._version() : 0,
                                size_of(live)});
      }
    return state;
  }

  static size_t size_of(const IValue& v) {
    if (v.isList()) return v.toListRef().size();
    if (v.isGenericDict()) return v.toGenericDict().size();
    return 0;
  }

  struct Saved {
    jit::Module module;
    std::string name;
    IValue value;  // a deep copy, for restore()
    IValue live;   // the attribute itself, for written()
    int64_t version = 0;
    size_t size = 0;
  };
  std::vector<Saved> saved_;
};

// The batch's probe runs whose results the model went on writing into, as it left them
// (ProbeState::judged_at_end); the float run's tensors are the ones it left too.
void judge_runs_at_end(Session& session) {
  for (const RunJudgedAtEnd& r : session.judged_at_end) {
    ProbeState& probe = session.probes.at(r.probe);
    compare_run(probe, probe.float_runs.at(session.batch).at(r.run), r.result, r.operand, r.pick_order_dim);
  }
  session.judged_at_end.clear();
}

// One batch's run in the session active on this thread. `seed`: first seed LibTorch's
// generator for this batch.
IValue run_batch(const std::string& model_path, jit::Module& module, const Batch& batch, size_t b, bool seed) {
  g_session->batch = b;
  g_session->judged_at_end.clear();
  // Every run of a batch draws the same random numbers (farthest-point sampling starts at
  // torch.randint): float, simulated and fixed runs then differ by quantization alone.
  if (seed) at::manual_seed(kRandomSeedOfBatch + b);
  try {
    IValue outputs = module.forward(fresh_copy(batch));
    judge_runs_at_end(*g_session);
    return outputs;
  } catch (const c10::Error& e) {
    throw SimError(model_failed(model_path, b, e.what_without_backtrace(), g_session->mode));
  } catch (const std::exception& e) {  // torch::jit::JITException: `raise` in the model
    throw SimError(model_failed(model_path, b, e.what(), g_session->mode));
  }
}

// The state of LibTorch's (process-wide) random generator.
at::Tensor random_generator_state() {
  at::Generator generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  return generator.get_state();
}

// The batches on `session.threads` threads, each batch in a session forked for it; the forks
// are absorbed in batch order. When a batch fails, the batches before it and the failed one are
// absorbed (as a run one after another would have recorded them) and its error is thrown.
// Nullopt, with the session and the module as they were and Session::in_order saying why, when
// the run did what sim/batch_order.h could not see in the graph: it drew random numbers (a
// dropout in training mode; one generator for all threads gives each batch other numbers than
// its own seed) or wrote into the module's state. The batches must then run again, in order.
std::optional<std::vector<IValue>> run_at_once(const std::string& model_path, jit::Module& module,
                                               const ModuleState& start, const std::vector<Batch>& batches,
                                               Session& session, ProgressLine& progress, const std::string& phase) {
  const at::Tensor generator_before = random_generator_state();
  const ModuleState watched = ModuleState::watch(module);
  std::vector<Session> forks = fork_for_batches(session, batches.size());
  std::vector<IValue> outputs(batches.size());
  std::vector<std::string> failures(batches.size());
  std::atomic<size_t> next{0};
  std::mutex progress_mutex;
  size_t done = 0;
  // Grad mode and the other thread-local settings of this thread; the executor's optimisation
  // flag is per thread too, and must stay off (configure()).
  const at::ThreadLocalState settings;
  auto work = [&] {
    at::ThreadLocalStateGuard guard(settings);
    torch::NoGradGuard no_grad;
    jit::setGraphExecutorOptimize(false);
    for (size_t b = next++; b < batches.size(); b = next++) {
      ActiveSession active(forks[b]);
      try {
        outputs[b] = run_batch(model_path, module, batches[b], b, /*seed=*/false);
      } catch (const SimError& e) {
        failures[b] = e.what();
      } catch (...) {  // nothing may leave a thread: std::terminate
        failures[b] = model_failed(model_path, b, "an error that is not LibTorch's", forks[b].mode);
      }
      std::lock_guard<std::mutex> lock(progress_mutex);
      progress.update(phase, ++done);
    }
  };
  std::vector<std::thread> threads;
  // LibTorch's warning handler is per thread: each batch thread says warnings as this one does.
  c10::WarningHandler* warnings = c10::Warning::get_warning_handler();
  try {
    for (size_t t = 1; t < std::min(session.threads, batches.size()); ++t)
      threads.emplace_back([&] {
        ir::run_on_large_stack([&] {
          c10::Warning::WarningHandlerGuard same_warnings(warnings);
          work();
        });
      });
  } catch (const std::system_error&) {  // no more threads: the ones there are do the work
  }
  work();
  for (auto& t : threads) t.join();
  const bool drew = !at::equal(generator_before, random_generator_state());
  if (drew || watched.written()) {
    start.restore();
    session.in_order = drew ? "a run drew random numbers" : "a run wrote into the module's state";
    return std::nullopt;
  }
  for (size_t b = 0; b < batches.size(); ++b) {
    absorb(session, forks[b]);
    if (!failures[b].empty()) throw SimError(failures[b]);
  }
  return outputs;
}

// `start`: the module's state as this pass starts, to start again from.
std::vector<IValue> run_all(const std::string& model_path, jit::Module& module, const ModuleState& start,
                            const std::vector<Batch>& batches, Session& session, Mode mode, ProgressLine& progress,
                            const std::string& phase) {
  session.mode = mode;
  if (std::string why = torchscript::interpreter_limit_exceeded(module); !why.empty())
    throw SimError(ir::display_path(model_path) + ": " + why);
  if (session.threads > 1 && batches.size() > 1) {
    if (auto outputs = run_at_once(model_path, module, start, batches, session, progress, phase))
      return std::move(*outputs);
    session.threads = 1;  // and for the passes after this one
  }
  std::vector<IValue> outputs;
  for (size_t b = 0; b < batches.size(); ++b) {
    outputs.push_back(run_batch(model_path, module, batches[b], b, /*seed=*/true));
    progress.update(phase, b + 1);
  }
  return outputs;
}

void finish_calibration(Session& session) {
  for (auto& [path, p] : session.points) {
    if (p.stored) continue;
    p.quant_min = session.quant_min;
    p.quant_max = session.quant_max;
    p.zero_point = 0;
    p.scale = p.observer.seen ? p.observer.symmetric_scale(p.quant_min, p.quant_max) : 1.0;
  }
}

void save_outputs(const std::string& file, const std::vector<IValue>& outputs) {
  IValue value = outputs.size() == 1 ? outputs[0] : IValue(c10::impl::GenericList(c10::AnyType::get()));
  if (outputs.size() != 1)
    for (const auto& o : outputs) value.toList().push_back(o);
  std::vector<char> bytes = jit::pickle_save(value);
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    throw SimError(file + ": is a directory; --save-outputs and --save-float-outputs take a file name");
  std::string tmp = file + ".qlint-tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      std::filesystem::remove(tmp, ec);
      throw SimError(file + ": cannot be written");
    }
  }
  std::filesystem::rename(tmp, file, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw SimError(file + ": cannot be written: " + ec.message());
  }
}

// A batch's output whose error is this small is not paired row by row: a reordering would show
// as a larger error (and pairing costs a distance per pair of rows).
constexpr double kPairRowsBelowDb = 60;
// A reordering shows as a jump (NMS: 8.6 -> 117.8 dB); near-identical rows that quantization
// noise pairs the other way (two rows of a smooth map) gain little, and stay in their place.
constexpr double kReorderingGainDb = 10;

// One batch's output: its error position by position, and, when its rows are float's rows in
// another order (sim/row_order.h), the simulated value in float's row order, its error so, and
// the order (when the value holds one set of rows).
struct BatchOutput {
  ErrorStats positional;
  std::optional<ErrorStats> paired;
  std::optional<at::Tensor> in_order;
  std::optional<at::Tensor> order;
};

// The reordering along the dimension that pairs best, if its error reaches `at_least` dB: the
// last but one dimension first (boxes an NMS keeps, tokens a gather takes), then the earlier ones
// (a trajectory model's modes sorted by score along dim 1 of modes x time x 2).
void best_reordering(const at::Tensor& f, const at::Tensor& s, double at_least, BatchOutput& out) {
  for (int64_t dim = f.dim() - 2; dim >= 0; --dim) {
    std::optional<RowsInFloatOrder> found = rows_and_order_in_float_order(f, s, dim);
    if (!found) continue;
    ErrorStats reordered;
    reordered.add(f, found->value);
    if (reordered.sqnr_db() >= at_least && (!out.paired || reordered.sqnr_db() > out.paired->sqnr_db())) {
      out.paired = reordered;
      out.in_order = found->value;
      out.order = found->order;
    }
  }
}

BatchOutput measure_batch(const at::Tensor& f, const at::Tensor& s) {
  BatchOutput out;
  out.positional.add(f, s);
  if (out.positional.sqnr_db() < kPairRowsBelowDb)
    best_reordering(f, s, out.positional.sqnr_db() + kReorderingGainDb, out);
  return out;
}

// An output that no pairing of its own put in order, with the rows in the order another output of
// the batch was found in (sim/row_order.h, in_row_order): taken when it gains what a reordering
// must, or, for whole numbers, when fewer of them differ.
void follow_order(BatchOutput& out, const at::Tensor& f, const at::Tensor& s, const std::vector<at::Tensor>& orders) {
  if (out.paired || out.positional.sqnr_db() >= kPairRowsBelowDb || f.sizes() != s.sizes()) return;
  const bool whole = !f.is_floating_point();
  const int64_t differing = whole ? at::ne(f, s).sum().item<int64_t>() : 0;
  for (const at::Tensor& order : orders) {
    std::optional<at::Tensor> in_order = in_row_order(s, order);
    if (!in_order || in_order->sizes() != f.sizes()) continue;
    ErrorStats reordered;
    reordered.add(f, *in_order);
    const bool gains = whole ? at::ne(f, *in_order).sum().item<int64_t>() < differing
                             : reordered.sqnr_db() >= out.positional.sqnr_db() + kReorderingGainDb;
    if (!gains) continue;
    out.paired = reordered;
    out.in_order = in_order;
    return;
  }
}

// Whether a 1-D bool or integer output holds float's values in another order: the classes of the
// boxes an NMS keeps, whose near-ties in score changed places (public round 21: "14 of which
// differ" where the same boxes and classes were kept). The boxes themselves are paired row by
// row (best_reordering).
bool same_values_in_another_order(const at::Tensor& f, const at::Tensor& s) {
  if (f.dim() != 1) return false;
  const at::Tensor a = f.to(at::kLong), b = s.to(at::kLong);
  return at::equal(std::get<0>(a.sort()), std::get<0>(b.sort()));
}

// The largest finite |value| of `t`, 0 for an empty tensor.
double largest_magnitude(const at::Tensor& t) {
  if (t.numel() == 0 || t.is_complex()) return 0;
  const at::Tensor values = t.is_quantized() ? t.dequantize() : t;
  return values.detach().to(at::kDouble).nan_to_num(0, 0, 0).abs().max().item<double>();
}

std::vector<OutputResult> compare_outputs(const std::vector<IValue>& float_outputs,
                                          const std::vector<IValue>& sim_outputs) {
  std::vector<ErrorStats> stats, paired;
  std::vector<bool> integer, reordered;
  std::vector<int64_t> differing;
  std::vector<double> float_magnitude, simulated_magnitude;
  for (size_t b = 0; b < float_outputs.size() && b < sim_outputs.size(); ++b) {
    std::vector<at::Tensor> f, s;
    flatten_tensors(float_outputs[b], f);
    flatten_tensors(sim_outputs[b], s);
    stats.resize(std::max(stats.size(), f.size()));
    paired.resize(stats.size());
    integer.resize(stats.size(), true);
    reordered.resize(stats.size(), false);
    differing.resize(stats.size(), 0);
    float_magnitude.resize(stats.size(), 0);
    simulated_magnitude.resize(stats.size(), 0);
    const size_t n = std::min(f.size(), s.size());
    std::vector<BatchOutput> measured;
    std::vector<at::Tensor> orders;
    for (size_t i = 0; i < n; ++i) {
      measured.push_back(measure_batch(f[i], s[i]));
      if (measured.back().order) orders.push_back(*measured.back().order);
    }
    for (size_t i = 0; i < n; ++i) {
      follow_order(measured[i], f[i], s[i], orders);
      float_magnitude[i] = std::max(float_magnitude[i], largest_magnitude(f[i]));
      simulated_magnitude[i] = std::max(simulated_magnitude[i], largest_magnitude(s[i]));
      integer[i] = integer[i] && !f[i].is_floating_point() && !f[i].is_complex();
      stats[i].merge(measured[i].positional);
      paired[i].merge(measured[i].paired ? *measured[i].paired : measured[i].positional);
      if (measured[i].paired) reordered[i] = true;
      if (!integer[i] || f[i].sizes() != s[i].sizes()) continue;
      const at::Tensor& judged = measured[i].in_order ? *measured[i].in_order : s[i];
      const int64_t positional = at::ne(f[i], judged).sum().item<int64_t>();
      if (positional > 0 && same_values_in_another_order(f[i], s[i]))
        reordered[i] = true;
      else
        differing[i] += positional;
    }
  }
  std::vector<OutputResult> results;
  for (size_t i = 0; i < stats.size(); ++i) {
    results.push_back(output_result(reordered[i] ? paired[i] : stats[i], i));
    results.back().integer = integer[i];
    results.back().differing_elements = integer[i] ? differing[i] : 0;
    results.back().rows_reordered = reordered[i];
    results.back().positional_sqnr_db = stats[i].sqnr_db();
    results.back().float_magnitude = float_magnitude[i];
    results.back().simulated_magnitude = simulated_magnitude[i];
  }
  return results;
}

Report build_report(const std::string& model_path, const Session& session, const Options& options,
                    const std::vector<IValue>& float_outputs, const std::vector<IValue>& sim_outputs) {
  Report report;
  report.model = model_path;
  report.bits = options.bits;
  report.engine = quantized_engine();
  report.cpu = cpu_features();
  report.batches = static_cast<int>(float_outputs.size());
  report.batches_at_once = static_cast<int>(std::max<size_t>(1, std::min(session.threads, float_outputs.size())));
  if (float_outputs.size() > 1) report.batches_in_order = session.in_order;
  for (const auto& [path, p] : session.points) {
    QuantPointResult r{path, p.observer.seen, p.stored, p.scale, p.zero_point, p.quant_min, p.quant_max, 0,
                       0,    p.sites,         p.op};
    if (p.observer.seen) {
      r.min = p.observer.min.item<double>();
      r.max = p.observer.max.item<double>();
    }
    report.points.push_back(r);
  }
  report.outputs = compare_outputs(float_outputs, sim_outputs);
  for (const auto& probe : session.probes)
    if (probe.elements > 0 || probe.runs_not_compared > 0)
      report.comparisons.push_back({probe.kind, probe.loc, probe.elements, probe.differing, probe.constant,
                                    probe.constant && probe.operand_only_zero_or_constant, probe.integer_result,
                                    probe.runs_not_compared, probe.functions, probe.copy, probe.copies});
  for (const auto& value : options.calibrate_values) {
    auto it = session.observed.find(value.value);
    if (it == session.observed.end() || !it->second.seen) continue;
    const Observer& o = it->second;
    report.calibrated_values.push_back({value.value,
                                        true,
                                        false,
                                        o.symmetric_scale(value.quant_min, value.quant_max),
                                        Observer::symmetric_zero_point(value.quant_min, value.quant_max),
                                        value.quant_min,
                                        value.quant_max,
                                        o.min.item<double>(),
                                        o.max.item<double>(),
                                        {},
                                        ""});
    report.calibrated_values.back().whole_numbers = o.whole_numbers;
  }
  return report;
}

void add_layers(Report& report, const LayerRecorder& layers, const Options& options) {
  report.layers_requested = true;
  report.layers = layers.results();
  report.layers_not_compared = layers.not_compared();
  report.layers_memory_mib = options.layers_memory_mib;
  report.layers_min_sqnr_db = options.min_sqnr_db;
}

jit::Module load_model(const std::string& path) {
  try {
    return torchscript::load_torchscript(path);
  } catch (const torchscript::ImportError& e) {
    throw SimError(path + ": " + e.what());
  }
}

}  // namespace

namespace {

// An instrumented clone of a loaded model, ready to run in either mode.
struct Prepared {
  jit::Module module;
  Session session;
  torchscript::SourceLines lines;  // filled by the instrumenter's source locations; unused after
};

// A module handed to a method as an argument (a trace passes `self.quant` to a child whose
// nn.Sequential holds it too, or a lambda's module to a sublayer) has, as the callee's parameter,
// a class of its own that the trace made, which no module of the model has: the interpreter calls
// that class's methods, not those of the module passed, which the clone instruments (public round
// 21: such a fake quant stayed on in the float run, 34.4 dB where PyTorch measured 11.2). Each such
// parameter gets the class of the module its callers pass.
void retarget_module_arguments(jit::Module& clone) {
  std::set<const c10::ClassType*> classes;
  std::vector<std::shared_ptr<jit::Graph>> graphs;
  for (const auto& m : clone.named_modules()) {
    classes.insert(m.value.type().get());
    for (const auto& method : m.value.get_methods()) graphs.push_back(method.graph());
  }
  std::vector<jit::Node*> nodes, calls;
  for (const auto& g : graphs) collect_nodes(g->block(), nodes);
  std::copy_if(nodes.begin(), nodes.end(), std::back_inserter(calls),
               [](const jit::Node* n) { return n->kind() == c10::prim::CallMethod; });
  // A module passed on again (into a callee's callee) is reached once its first callee's
  // parameter has the class: again until nothing changes. A parameter whose calls pass modules of
  // different classes keeps its own: no one class is right for all of them.
  for (bool changed = true; changed;) {
    changed = false;
    std::map<jit::Value*, std::set<c10::ClassTypePtr>> passed_to;
    for (jit::Node* call : calls) {
      auto callee_class = call->input(0)->type()->cast<c10::ClassType>();
      if (!callee_class || !classes.count(callee_class.get())) continue;  // the original model's: left alone
      jit::Function* callee = callee_class->findMethod(call->s(jit::attr::name));
      if (callee == nullptr || !callee->isGraphFunction()) continue;
      const std::shared_ptr<jit::Graph> graph = jit::toGraphFunction(*callee).graph();
      for (size_t i = 1; i < call->inputs().size() && i < graph->inputs().size(); ++i) {
        auto passed = call->input(i)->type()->cast<c10::ClassType>();
        auto declared = graph->inputs()[i]->type()->cast<c10::ClassType>();
        if (passed && declared && passed != declared && declared->is_module() && !classes.count(declared.get()))
          passed_to[graph->inputs()[i]].insert(passed);
      }
    }
    for (const auto& [parameter, passed] : passed_to)
      if (passed.size() == 1 && classes.count(passed.begin()->get())) {
        parameter->setType(*passed.begin());
        changed = true;
      }
  }
}

// Instruments a clone of `model` for `session`; with `float_reference`, first rewrites the clone
// into a converted model's float reference (returns why it could not, else "").
std::string instrument_clone(Prepared& p, Session& session, const jit::Module& model, const Options& options,
                             bool float_reference, bool reuse_probes) {
  // The caller's model stays as it was: instrumentation changes graphs, so it works on a clone
  // (whose free functions the rewriter copies as it reaches them).
  p.module = model.clone();
  p.module.eval();
  retarget_module_arguments(p.module);
  torchscript::GraphRewriter rewriter(p.module);
  if (float_reference)
    if (std::string missing = make_float_reference(p.module, rewriter); !missing.empty()) return missing;
  Instrumenter instrumenter(session, options.stubs, p.lines, rewriter);
  if (reuse_probes) instrumenter.reuse_probes();
  if (options.layers) instrumenter.record_layers();
  instrumenter.observe(options.calibrate_values);
  instrumenter.module(p.module);
  return "";
}

void configure(Session& session, const Options& options) {
  if (options.bits != 16 && options.bits != 8) throw SimError("--bits must be 16 or 8");
  session.recalibrate = options.recalibrate;
  session.quant_min = options.bits == 16 ? -32768 : -128;
  session.quant_max = options.bits == 16 ? 32767 : 127;
  // Optimisation passes could fuse or reorder ops; without them every op runs as in eager
  // PyTorch, which is what the simulation must match bit for bit.
  jit::setGraphExecutorOptimize(false);
}

void prepare(Prepared& p, const jit::Module& model, const Options& options) {
  configure(p.session, options);
  instrument_clone(p, p.session, model, options, false, false);
}

}  // namespace

void flatten_tensors(const IValue& v, std::vector<at::Tensor>& out) {
  if (v.isTensor()) {
    out.push_back(v.toTensor());
  } else if (v.isTuple()) {
    for (const auto& e : v.toTupleRef().elements()) flatten_tensors(e, out);
  } else if (v.isList()) {
    for (const auto& e : v.toListRef()) flatten_tensors(e, out);
  } else if (v.isGenericDict()) {
    for (const auto& entry : v.toGenericDict()) flatten_tensors(entry.value(), out);
  }
}

namespace {

// Whether the model's own ranges set the width, whatever --bits says: a converted model's int8
// kernels, or quant points that all keep the ranges stored in the model (traced QAT).
bool model_decides_width(const Report& report) {
  if (!report.int8_ops.empty()) return true;
  if (report.points.empty()) return false;
  for (const auto& p : report.points)
    if (!p.stored) return false;
  return true;
}

}  // namespace

// The width the simulation actually had: a converted model's kernels are int8, and a model whose
// quant points all keep their stored ranges (traced QAT) has their width, whatever --bits said.
int effective_bits(const Report& report, int requested) {
  if (!report.int8_ops.empty()) return 8;
  if (!model_decides_width(report)) return requested;
  int64_t widest = 0;
  for (const auto& p : report.points) widest = std::max(widest, p.quant_max - p.quant_min);
  return widest <= 255 ? 8 : 16;
}

namespace {

// What attribution's passes run: the simulated side again, against the float run's outputs.
struct PassContext {
  const std::string& model_path;
  jit::Module& module;
  Session& session;
  const std::vector<Batch>& batches;
  const ModuleState& initial;
  ProgressLine& progress;
};

// One simulated pass with only `quantized` quantized, from the model's initial state.
PassOutcome simulated_pass(const PassContext& c, const std::vector<IValue>& float_outputs,
                           const std::set<std::string>& quantized, bool weights, const std::string& phase) {
  c.session.quantized = &quantized;
  c.session.weights_in_float = !weights;
  for (auto& probe : c.session.probes) {
    probe.simulated_runs.clear();
    probe.elements = 0;
    probe.differing = 0;
    probe.runs_not_compared = 0;
  }
  c.initial.restore();
  PassOutcome outcome;
  try {
    outcome.outputs = compare_outputs(float_outputs, run_all(c.model_path, c.module, c.initial, c.batches, c.session,
                                                             Mode::Simulate, c.progress, phase));
  } catch (const SimError& e) {
    outcome.failure = e.what();
  }
  c.session.quantized = nullptr;
  c.session.weights_in_float = false;
  for (const auto& probe : c.session.probes) {
    if (probe.elements == 0) continue;
    std::string key = analysis::comparison_key(probe.kind, probe.loc);
    outcome.differing[key] += probe.differing;
    outcome.elements[key] += probe.elements;
  }
  return outcome;
}

// Options::attribute and Options::sensitivity, after the run in `run`.
void explain(Run& run, const PassContext& context, const Options& options) {
  int pass = 0;
  PassRunner runner = [&](const std::set<std::string>& quantized, bool weights) {
    ++pass;
    return simulated_pass(context, run.float_outputs, quantized, weights,
                          (options.attribute ? "attributing: pass " : "sensitivity: pass ") + std::to_string(pass));
  };
  AttributionSetup setup{context.session.reach_order, context.session.weights_quantized,
                         options.min_sqnr_db.value_or(default_min_sqnr_db(effective_bits(run.report, options.bits)))};
  if (options.attribute) {
    PassOutcome full = outcome_of(run.report);
    setup.max_passes = options.attribution_passes.value_or(default_attribution_passes(context.session.point_values));
    Attributed attributed = attribute(divergences_of(run.report, full, setup.min_sqnr_db), full, setup, runner);
    run.report.attributions = std::move(attributed.attributions);
    run.report.unattributed = std::move(attributed.unattributed);
    run.report.attribution_passes = attributed.passes;
    run.report.attribution_budget = setup.max_passes;
    run.report.attribution_budget_given = options.attribution_passes.has_value();
    run.report.attribution_pass_values = context.session.point_values;
  }
  if (options.sensitivity) run.report.sensitivity = sensitivity(setup, runner);
}

}  // namespace

namespace {

// Options::threads, unless the batches of this model must run in order (Session::in_order).
void choose_batch_threads(Session& session, const Options& options, const jit::Module& float_side,
                          const jit::Module& simulated_side) {
  session.threads = 1;
  if (options.threads <= 1) return;
  session.in_order = options.layers ? "--layers keeps the float values in the order the model computes them"
                                    : why_batches_run_in_order(float_side);
  if (session.in_order.empty() && &simulated_side != &float_side)
    session.in_order = why_batches_run_in_order(simulated_side);
  if (session.in_order.empty()) session.threads = static_cast<size_t>(options.threads);
}

}  // namespace

// Runs the float side (observing the quant points), then the simulated side, on every batch,
// and compares them. One module may be both sides: a model that changes its own attributes in
// forward (a counter, a cache) then starts both runs from the same state, or its own drift
// would count as quantization error.
Run float_then_simulated(const std::string& model_path, jit::Module& float_side, jit::Module& simulated_side,
                         Session& session, const std::vector<Batch>& batches, const Options& options) {
  torch::NoGradGuard no_grad;
  ActiveSession active(session);
  choose_batch_threads(session, options, float_side, simulated_side);
  ProgressLine progress(options.progress, batches.size());
  const ModuleState initial = ModuleState::of(simulated_side);
  // A converted model's float reference is a module of its own, with a state of its own.
  std::optional<ModuleState> float_initial;
  if (&float_side != &simulated_side && session.threads > 1) float_initial = ModuleState::of(float_side);
  Run run;
  std::optional<LayerRecorder> layers;
  if (options.layers) session.layers = &layers.emplace(options.layers_memory_mib);
  run.float_outputs = run_all(model_path, float_side, float_initial ? *float_initial : initial, batches, session,
                              Mode::Float, progress, "calibrating");
  finish_calibration(session);
  initial.restore();
  std::vector<IValue> sim_results =
      run_all(model_path, simulated_side, initial, batches, session, Mode::Simulate, progress, "simulating");
  session.layers = nullptr;
  run.report = build_report(model_path, session, options, run.float_outputs, sim_results);
  if (layers) add_layers(run.report, *layers, options);
  if (options.attribute || options.sensitivity) {
    if (&float_side != &simulated_side)
      run.report.no_attribution =
          "a converted model's int8 kernels run as a whole: its quant points cannot be kept in float one at a time";
    else
      explain(run, {model_path, simulated_side, session, batches, initial, progress}, options);
  }
  if (!options.save_outputs.empty()) save_outputs(options.save_outputs, sim_results);
  if (!options.save_float_outputs.empty()) save_outputs(options.save_float_outputs, run.float_outputs);
  return run;
}

// A converted model: its float reference runs as the float side, the model's own int8 kernels
// as the simulated side. Nullopt when some int8 op has no float form (`no_reference` says which).
std::optional<Run> simulate_converted(const jit::Module& model, const std::string& model_path,
                                      const std::vector<Batch>& batches, const Options& options,
                                      std::string& no_reference) {
  Prepared reference;
  configure(reference.session, options);
  no_reference = instrument_clone(reference, reference.session, model, options, true, false);
  if (!no_reference.empty()) return std::nullopt;
  Prepared int8;
  instrument_clone(int8, reference.session, model, options, false, true);
  return float_then_simulated(model_path, reference.module, int8.module, reference.session, batches, options);
}

std::vector<ir::DType> dtypes_of(const Batch& batch) {
  std::vector<ir::DType> dtypes;
  for (const IValue& input : batch)
    dtypes.push_back(input.isTensor()
                         ? ir::dtype_from_scalar_type_code(static_cast<int64_t>(input.toTensor().scalar_type()))
                               .value_or(ir::DType::Unknown)
                         : ir::DType::Unknown);
  return dtypes;
}

// Per input: a float tensor holding only 0 and 1 in every batch.
std::vector<bool> zero_one_inputs(const std::vector<Batch>& batches) {
  std::vector<bool> zero_one(batches.empty() ? 0 : batches.front().size(), true);
  for (const Batch& batch : batches)
    for (size_t i = 0; i < batch.size() && i < zero_one.size(); ++i) {
      if (!zero_one[i]) continue;
      const bool tensor = batch[i].isTensor() && batch[i].toTensor().is_floating_point();
      zero_one[i] = tensor && batch[i].toTensor().numel() > 0 &&
                    at::logical_or(batch[i].toTensor() == 0, batch[i].toTensor() == 1).all().item<bool>();
    }
  return zero_one;
}

Run simulate_loaded(const jit::Module& model, const std::string& model_path, const std::vector<Batch>& batches,
                    const Options& options) {
  const std::set<std::string> ops = int8_ops(model);
  std::string no_reference;
  std::optional<Run> run;
  if (!ops.empty()) run = simulate_converted(model, model_path, batches, options, no_reference);
  if (!run) {
    Prepared p;
    prepare(p, model, options);
    run = float_then_simulated(model_path, p.module, p.module, p.session, batches, options);
  }
  run->report.int8_ops.assign(ops.begin(), ops.end());
  run->report.no_float_reference = no_reference;
  run->report.bits = effective_bits(run->report, options.bits);
  // Said also when --bits equals the width the model has (public round 29: `--bits 8` on a uint7
  // model printed the same figures with no word that it did nothing).
  if (options.bits_given && model_decides_width(run->report)) run->report.bits_not_applied = options.bits;
  if (!batches.empty()) run->report.input_dtypes = dtypes_of(batches.front());
  run->report.zero_one_inputs = zero_one_inputs(batches);
  return std::move(*run);
}

Report simulate(const std::string& model_path, const Inputs& inputs, const Options& options) {
  jit::Module model = load_model(model_path);
  return simulate(model, model_path, inputs, options);
}

Report simulate(jit::Module& model, const std::string& model_path, const Inputs& inputs, const Options& options) {
  std::optional<Run> loaded;
  try {
    loaded = simulate_loaded(model, model_path, load_batches(model, inputs), options);
  } catch (const SimError& e) {
    throw SimError(e.what() + random_inputs_hint(inputs));
  }
  Run& run = *loaded;
  run.report.random_inputs = !inputs.random_shapes.empty();
  return std::move(run.report);
}

}  // namespace qlint::sim
