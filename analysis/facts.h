// What the analyses know about every value of a model: its tensor dtype, the quant points
// whose rounding error it carries, whether it is inside the quantized domain, whether it
// depends on a model input, and whether it is a view of a quant point's output.
// Rules read these facts; they never recompute them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace qlint::analysis {

// Which module classes are quant points. Names are matched after normalising TorchScript's
// spelling (the "__torch__." prefix and "___torch_mangle_N." segments are dropped), either in
// full or as a dotted suffix: "QuantStub" or "stubs.QuantStub" match
// "torch.ao.quantization.stubs.QuantStub", so a toolchain's stub can be named without the
// module path TorchScript recorded for it.
struct StubClasses {
  std::vector<std::string> quant = {"torch.ao.quantization.stubs.QuantStub", "torch.quantization.stubs.QuantStub",
                                    "torch.quantization.QuantStub"};
  std::vector<std::string> dequant = {"torch.ao.quantization.stubs.DeQuantStub", "torch.quantization.stubs.DeQuantStub",
                                      "torch.quantization.DeQuantStub"};
};

std::string normalize_class_name(const std::string& torchscript_name);

// What a prim::SetAttr writes and a prim::GetAttr reads: "head.cache" for a module attribute (by
// instance path), "object __torch__.Pair.mask" for a field of a TorchScript class object (by
// class: what any object of the class holds). nullopt for other nodes.
std::optional<std::string> attribute_key(const ir::Node& n);

// How messages name the quant point of a module instance: "self.quant", also for the
// FakeQuantize that eager-mode QAT hangs under it ("quant.activation_post_process").
std::string module_quant_point_display(std::string path);
bool class_name_matches(const std::string& configured, const std::string& normalized);

enum class StubKind { None, Quant, DeQuant };

// A place where values are quantized: a QuantStub instance, or an in-graph quantize op
// (a traced QAT model's FakeQuantize, a converted model's quantize_per_tensor).
struct QuantPoint {
  std::string id;                  // "quant", "quant.activation_post_process", or "fn:%value"
  std::string display;             // how messages name it: "self.quant", "torch.quantize_per_tensor"
  int line = 0;                    // in-graph ops: the user's line, when known
  std::string file;                // the file of that line, when known
  const ir::Node* node = nullptr;  // the in-graph op; null for stubs (see calls)
  std::optional<double> scale;     // known when the model states it (traced QAT, converted)
  int64_t zero_point = 0;
  int64_t quant_min = -32768;  // int16 unless the op says otherwise
  int64_t quant_max = 32767;
  // A stub or a fake quantize: switched off, it passes its input through, so a rewrite may
  // read its input instead. Quantize ops and quantized kernels change the value and its type.
  bool identity_in_float = true;
  // C++: the outputs of a TorchScript model the program runs, quantized inside the model.
  bool model_outputs = false;
  // A FakeQuantize traced with its observer on (its scale is the observer's update, written into
  // the buffer before the op), or a fused one whose observer flag is on: at run time its scale
  // follows the range of every input it sees, so the model's scales are not fixed (`eval()`
  // alone leaves observers on; `disable_observer` turns them off).
  bool observes_at_run_time = false;
};

// A quant point as messages name it: "`self.quant`", "`torch.quantize_per_tensor` on line 12",
// "the TorchScript model `yolo.pt` on line 8".
// Seen from a message at `here`, a line of another file is named with its file ("prep.h:12").
std::string describe(const QuantPoint& point, const ir::SourceLoc& here = {});
// Its display in code quotes; a C++ program's model run as "the TorchScript model `yolo.pt`".
std::string quoted_display(const std::string& display);

// One call that quantizes a tensor: a QuantStub call, or a call of a FakeQuantize module.
struct QuantCall {
  std::string point;  // QuantPoint id
  const ir::Node* call = nullptr;
  const ir::Value* input = nullptr;
  const ir::Value* output = nullptr;
  // The key under which views of this call's output are known (Facts::views_of): the point's id
  // for a point called once, "quant#1" for the second of its calls, so that a rule can tell the
  // tensors a reused stub quantizes apart. Views also carry the point's id itself.
  std::string view_key;
};

// A quant point's parameters measured by the simulator (`qlint check --input`), by id.
struct CalibratedPoint {
  double scale = 0;
  int64_t zero_point = 0;
  int64_t quant_min = -32768;
  int64_t quant_max = 32767;
};
using Calibration = std::map<std::string, CalibratedPoint>;

// How one comparison behaved in the simulation: over all batches, how many of its results
// differ between the float run and the simulated int run.
struct SimulatedComparison {
  int64_t elements = 0;
  int64_t differing = 0;
};

// One model output's signal-to-quantization-noise ratio against the float run.
struct SimulatedOutput {
  std::string name;    // "output 0"
  double sqnr_db = 0;  // +inf when the simulation is exact
  // "34x4 in float, 36x4 once quantized" when a batch's shapes differ (a size that depends on
  // the data: a flipped threshold before a nonzero or an NMS); then sqnr_db is -inf.
  std::string shape_difference;
  // A bool or integer output (a mask, indices): the comparison or the argmax, topk or cast that
  // decides its values is judged, not its SQNR; `differing_elements` says how many differ.
  bool integer = false;
  int64_t differing_elements = 0;
};

// What `qlint check --input` asks the sim-divergence rule to judge: the simulation's
// comparisons (by comparison_key) and outputs, and the SQNR an output must keep.
struct SimulatedRun {
  int bits = 16;
  std::string width = "int16";  // sim::width_name: "uint8" for PyTorch's default QAT qconfig
  int batches = 0;
  bool random_inputs = false;  // --random-input rather than the user's files
  double min_sqnr_db = 40;
  std::map<std::string, SimulatedComparison> comparisons;
  // Each copy of a comparison on its own, where a function holds several copies of one line (a
  // decode step a trace unrolled once per token, in `forward`, `forward1`, ...): by copy_key. The
  // copies of a line count together in `comparisons`; these tell which copy flipped first.
  std::map<std::string, SimulatedComparison> copies;
  // How many copies of a line the simulation probed in a function (by copy_key without `copy`):
  // where the IR holds another number, its copies are not matched to these.
  std::map<std::string, size_t> copies_in_function;
  std::vector<SimulatedOutput> outputs;
};

// The k-th copy (from 0, in the order of the function's nodes) of the comparison `key`
// (comparison_key) in `function` (as the IR names it); without `copy`, all of them.
std::string copy_key(const std::string& function, const std::string& key, std::optional<size_t> copy = std::nullopt);

// "int16 simulation on 1 input batch", "int8 simulation on 4 random input batches".
std::string describe(const SimulatedRun& run);

// What a simulation (`--input`) measured, for the rules: quant point parameters, the
// comparisons whose compared tensor held only 0 and the constant (by comparison_key) and,
// for `check --input` only, the run's results (the rewriter's rounds leave them out: they
// describe the model before its rewrites).
struct SimulationEvidence {
  Calibration calibration;
  std::set<std::string> binary_comparisons;
  // Every comparison with a constant that the simulation ran, whatever its operand held.
  std::set<std::string> simulated_comparisons;
  std::optional<SimulatedRun> run;
  // The dtypes of forward's inputs as the simulation's first batch had them, for inputs whose
  // type the model leaves open (TorchScript records `Tensor`, not `Tensor(dtype=bool)`).
  std::vector<ir::DType> input_dtypes;
  // Per forward input: a float tensor that held only 0 and 1 in every batch.
  std::vector<bool> zero_one_inputs;
};

// Identifies a comparison across the importer and the simulator: kind and source range.
std::string comparison_key(const std::string& kind, const ir::SourceLoc& loc);
// The same for a node: its copies at one line (a helper a trace inlined twice) share it.
inline std::string comparison_key(const ir::Node& node) { return comparison_key(node.kind, node.loc); }

class Facts {
 public:
  // Runs dtype inference and the value analyses over all functions, interprocedurally, to a
  // fixpoint. A calibration, when given, sets the quant points' scales.
  static Facts compute(const ir::Model& model, const StubClasses& stubs = {}, const SimulationEvidence& evidence = {});

  ir::DType dtype(const ir::Value* v) const;

  // How many passes over the model the solver made to reach its fixpoint (tests: facts settle
  // in a few passes; a join that reports a change it did not make keeps it going to its cap).
  int solver_passes() const { return solver_passes_; }

  // Quant points whose rounding error this value carries, also after a DeQuantStub. Bool
  // and integer values carry none: they are exact.
  const std::set<std::string>& quant_sources(const ir::Value* v) const;
  bool quantized(const ir::Value* v) const { return !quant_sources(v).empty(); }

  // Whether the value is inside the quantized domain: past a quant point and not yet past a
  // DeQuantStub or dequantize. This is what runs on the accelerator.
  bool in_quantized_domain(const ir::Value* v) const;

  // Whether the value depends on an input of the model's forward (rather than only on
  // constants and module state such as weights).
  bool from_input(const ir::Value* v) const;
  // Whether `v` is an input of the model's forward that held only 0 and 1 in every batch the
  // simulation ran (`check --input`, `--fix --input`): a mask given as floats.
  bool is_zero_one_input(const ir::Value* v) const { return zero_one_inputs_.count(v) > 0; }

  // Quant points this value is a pure view of (reshaped, sliced, selected, indexed), and
  // whether the view is a part (some indexing happened) rather than the whole output.
  const std::map<std::string, bool>& views_of(const ir::Value* v) const;

  StubKind stub_call(const ir::Node& call) const;
  const QuantPoint* quant_point(const std::string& id) const;
  const std::map<std::string, QuantPoint>& quant_points() const { return quant_points_; }
  const std::vector<QuantCall>& quant_calls() const { return quant_calls_; }
  // The quant call whose output `v` is, if any.
  const QuantCall* quant_call_producing(const ir::Value* v) const;
  // A QuantStub instance that can be cloned as a new stub: a plain stub without submodules
  // (a traced QAT model's stubs carry calibrated FakeQuantize children). "" when none.
  std::string plain_stub_template() const;
  bool is_plain_stub(const std::string& path) const;
  // The output fake quant of an ordinary module (`linear.activation_post_process` of a Linear, an
  // LSTM's gate), as QAT gives every quantized module; not a QuantStub's, nor a FakeQuantize
  // the model calls itself.
  bool is_module_output_quant_point(const std::string& point) const {
    return output_quant_point_owner(point).has_value();
  }
  // The ordinary module such a point belongs to ("proj" for "proj.activation_post_process").
  std::optional<std::string> output_quant_point_owner(const std::string& point) const;

  // Whether the simulation saw only 0 and the constant in this comparison's tensor operand.
  bool compares_only_zero_or_constant(const ir::Node& comparison) const;
  // Whether the simulation ran this comparison and saw other values in its tensor operand than
  // 0 and the constant: `seq != pad_idx` on token ids 1..39 is no test of a 0/1 mask channel.
  bool compares_other_values(const ir::Node& comparison) const;
  // The simulation's results, when `check --input` ran one; null otherwise.
  const SimulatedRun* simulated_run() const { return simulated_run_ ? &*simulated_run_ : nullptr; }
  // How the simulation saw this comparison node; null when it has no result for it. Its copies
  // at the same line count together (a helper called twice, a step unrolled by a trace).
  const SimulatedComparison* simulated_comparison(const ir::Node& comparison) const;
  // How the simulation saw this very copy of the comparison, where it tells the copies of a line
  // apart (SimulatedRun::copies); else as simulated_comparison.
  const SimulatedComparison* simulated_copy(const ir::Node& comparison) const;

  const ir::Model& model() const { return *model_; }
  const ir::Function* function_of(const ir::Node& node) const;

  // Branches the archive fixes: an `if` on a module attribute that is a bool or int constant in
  // the loaded module and that forward never assigns (`if self.use_aux:`), on a `Final`
  // constant, or on `torch.jit.is_scripting()`; and `self.training`, false in the eval mode a
  // quantized model is deployed (and simulated) in. The block of a folded `if` that runs;
  // nullopt for other nodes.
  std::optional<size_t> folded_branch(const ir::Node& if_node) const;
  // Whether `node` can run: it sits in no branch that a folded `if` skips. Rules report nothing,
  // and fixes change nothing, in dead code.
  bool is_live(const ir::Node& node) const;

 private:
  friend class FactsSolver;
  struct ValueFacts {
    ir::DType dtype = ir::DType::Unknown;
    std::set<std::string> sources;
    std::set<std::string> domain;
    bool from_input = false;
    std::map<std::string, bool> views;  // quant point id -> is a part
    // A container's elements by key ("'mask", or a tuple/list position "0"), so that
    // `feats["mask"]` is the part of the stub output it was built from and `feats["flag"]`
    // carries no quantization because `feats["data"]` does. An element stored under a key
    // not known statically (key "") counts under every key.
    struct Element {
      std::set<std::string> sources;
      std::set<std::string> domain;
      bool from_input = false;
      std::map<std::string, bool> views;
      // A tensor element's dtype (int64 lengths a submodule returns beside its features, public
      // round 28: conformer's), Unknown when not known or not one.
      ir::DType dtype = ir::DType::Unknown;
    };
    std::map<std::string, Element> elements;
  };
  const ValueFacts* find(const ir::Value* v) const;

  const ir::Model* model_ = nullptr;
  std::map<const ir::Value*, ValueFacts> values_;
  std::map<std::string, StubKind> stub_modules_;  // instance path -> kind
  std::map<std::string, QuantPoint> quant_points_;
  std::vector<QuantCall> quant_calls_;
  std::map<const ir::Block*, const ir::Function*> block_function_;
  std::map<const ir::Node*, size_t> folded_branches_;  // prim::If -> the block that runs
  std::set<std::string> binary_comparisons_;
  std::set<std::string> simulated_comparisons_;
  std::set<const ir::Value*> zero_one_inputs_;
  std::optional<SimulatedRun> simulated_run_;
  std::map<const ir::Node*, std::string> simulated_copies_;  // simulated_copy: SimulatedRun::copies' key
  int solver_passes_ = 0;
};

}  // namespace qlint::analysis
