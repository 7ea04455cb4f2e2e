// The int16/int8 fake-quant simulator. It runs the model through LibTorch's TorchScript
// executor (any op, any control flow), once in float while observing min/max at every quant
// point (PyTorch's MinMaxObserver, per-tensor symmetric), then again with fake quantization
// there (torch.fake_quantize_per_tensor_affine), and compares the two runs.
//
// This header has no LibTorch dependency; the implementation is in simulator.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/facts.h"
#include "ir/ir.h"

namespace torch::jit {
struct Module;
}

namespace qlint::sim {

// A problem with the model or the inputs, worded for the user in one line.
struct SimError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Inputs {
  std::vector<std::string> files;  // torch.save files, one calibration batch each
  std::string random_shapes;       // "1x2x4x4,1x8": one random tensor per model input
  int random_batches = 1;
  uint64_t seed = 0;
};

struct ValueToCalibrate {
  // "FUNCTION:POSITION": the IR's function name and the value's position in its graph
  // (torchscript::value_positions), which copies of the module keep.
  std::string value;
  int64_t quant_min = -32768;
  int64_t quant_max = 32767;
};

struct Options {
  int bits = 16;             // 16: -32768..32767, 8: -128..127
  bool bits_given = false;   // --bits was given: the report says when the model's own ranges override it
  bool recalibrate = false;  // traced QAT models: observe instead of using stored scales
  bool progress = false;     // a progress line on stderr while running many batches
  std::string save_outputs;  // torch.save the simulated outputs here when set
  // torch.save the float side's outputs here when set: a converted model's float reference, or
  // the float run of a model with stubs or fake quants.
  std::string save_float_outputs;
  analysis::StubClasses stubs;
  // Values that are to get a new quant point (`qlint --fix` in a traced QAT model), named as the
  // IR names them ("forward:%heading.1"), with the range the new point will have: the float run
  // observes each, and the report gives its symmetric scale (Report::calibrated_values).
  std::vector<ValueToCalibrate> calibrate_values;
  // After the run, find the quant points that cause each divergence (a flipped comparison, an
  // output under `min_sqnr_db`): Report::attributions. sim/attribution.h says how.
  bool attribute = false;
  // The passes attribution may run; unset: default_attribution_passes of the model's pass size.
  std::optional<int> attribution_passes;
  // The SQNR an output must keep; unset: default_min_sqnr_db of the width the model has.
  std::optional<double> min_sqnr_db;
  // After the run, each quant point's share of the error: Report::sensitivity (2 passes a point).
  bool sensitivity = false;
  // The error of every quant point's and every submodule call's value against float, in the
  // order the model computes them: Report::layers. The float run keeps those values until the
  // simulated run reaches them, at most `layers_memory_mib` MiB in all (what did not fit is not
  // compared, and Report::layers_not_compared counts it).
  bool layers = false;
  int64_t layers_memory_mib = 512;
  // Input batches simulated at once, on threads of their own; the results are those of running
  // them one after another. Batches run in order when the model draws random numbers or writes
  // its own state (sim/batch_order.h), and with `layers` (its memory budget fills in order).
  int threads = 1;
};

struct QuantPointResult {
  std::string path;  // module instance path of the stub or FakeQuantize
  bool reached = false;
  bool stored = false;  // scale from the model's state (traced QAT) rather than calibrated
  double scale = 0;
  int64_t zero_point = 0;
  int64_t quant_min = 0;
  int64_t quant_max = 0;
  double min = 0;  // observed over the calibration inputs
  double max = 0;
  // Where the model quantizes there: the stub's calls, the FakeQuantize's op (a stub called
  // from two lines has two), at the user's Python lines where the archive says.
  std::vector<ir::SourceLoc> sites;
  // A converted model's quant point: the op whose int8 output it is (aten::quantize_per_tensor,
  // quantized::conv2d, ...), with the scale and zero point that output carried and the range
  // of its dequantized values. Empty for QuantStubs and FakeQuantizes, which qlint quantizes.
  std::string op;
  // Report::calibrated_values only: every value observed was a whole number (a 0/1 mask).
  bool whole_numbers = false;
};

// One row of the per-layer error (Options::layers): a quant point or a submodule's forward, at
// one place it is computed (the stub's or the module's call, its Python line); the statistics
// cover every time that place ran (`calls`, over all batches: a loop, a module called twice on
// one line). A module called from two lines has two rows.
struct LayerResult {
  enum class Kind { QuantPoint, Module };
  Kind kind = Kind::Module;
  std::string path;            // module instance path ("backbone.layer1.0"), or the quant point's
  ir::SourceLoc loc;           // the call's (or the quant point op's) Python line, when known
  int64_t calls = 0;           // in the float run, over all batches
  int64_t compared = 0;        // calls the simulated run reached too, with the float value kept
  int64_t elements = 0;        // compared elements
  std::vector<int64_t> shape;  // of the first call's value
  double max_abs_error = 0;
  double sqnr_db = 0;  // +inf when exact; -inf when a shape differs
  // "4x8 in float, 5x8 once quantized" when a simulated value's shape differs from float's.
  std::string shape_difference;
};

struct OutputResult {
  std::string name;  // "output 0", ...
  std::vector<int64_t> shape;
  double max_abs_error = 0;
  double sqnr_db = 0;  // +inf when the simulation is exact
  double cosine = 1;
  // "34x4 in float, 36x4 once quantized" when the simulated output of a batch has another shape
  // than the float one (a data-dependent size): SQNR -inf, cosine 0.
  std::string shape_difference;
  // The largest finite magnitude of the float and of the simulated output, over the batches: what
  // still tells two runs apart once a shape differs (public round 20: a fix that doubled every box
  // corner back to float's showed as "shape differs -> shape differs").
  double float_magnitude = 0, simulated_magnitude = 0;
  // A bool or integer tensor (a mask, indices): its values are decided by a comparison, argmax,
  // topk or cast, whose changed results the report counts (ComparisonResult); no SQNR threshold
  // applies to it. Its elements that differ from float's, over the batches of the same shape.
  bool integer = false;
  int64_t differing_elements = 0;
  int64_t elements = 0;  // compared, over the batches of float's shape
  // The simulated output holds the float output's rows in another order (an NMS or a sort
  // whose near-ties changed places; sim/row_order.h): its error, SQNR and cosine are measured
  // with its rows paired with float's, and `positional_sqnr_db` is the SQNR position by position.
  bool rows_reordered = false;
  double positional_sqnr_db = 0;
};

struct ComparisonResult {
  std::string kind;  // aten::eq, ...
  ir::SourceLoc loc;
  int64_t elements = 0;            // over all batches
  int64_t differing = 0;           // elements whose result differs from the float run
  std::optional<double> constant;  // the scalar the tensor was compared with, if constant
  // In the float run the compared tensor held only 0 and `constant`: then `x == c` equals
  // `logical_not(x == 0)` on these inputs.
  bool operand_only_zero_or_constant = false;
  // Not a comparison but an op whose integer or bool result float values decide (argmax, topk's
  // indices, NMS, a cast of a float tensor to an integer dtype: analysis::decision_output).
  bool integer_result = false;
  // Runs of the simulated model whose result had another shape than the float run's at the same
  // run (rows a flipped decision before it let through), or that the float run never made: not
  // compared, and not in `elements`.
  int64_t runs_not_compared = 0;
  // The functions, as the IR names them, whose graph holds this probe (the instances of one module
  // class share theirs), which copy of its line in that graph it is (analysis::copy_key), and how
  // many copies that graph holds.
  std::vector<std::string> functions;
  size_t copy = 0;
  size_t copies = 1;
};

// A divergence the simulation measured: a comparison whose results flipped (its copies on one
// line together, as the sim-divergence rule counts them), or an output under the SQNR threshold.
struct Divergence {
  enum class Kind { Comparison, Output };
  Kind kind = Kind::Comparison;
  std::string key;    // comparisons: analysis::comparison_key(op, loc)
  std::string op;     // comparisons: aten::eq, ...
  ir::SourceLoc loc;  // comparisons: the comparison's line
  size_t output = 0;  // outputs: the index, as OutputResult::name counts it
  // outputs: a bool or integer tensor (OutputResult::integer), whose SQNR no message quotes
  bool integer_values = false;
};

// A quant point that causes a divergence, with the divergence's measure (an output's SQNR in
// dB, a comparison's differing elements) with only this point quantized, and with every point
// but this one quantized.
struct Cause {
  std::string point;  // QuantPointResult::path
  double alone = 0;
  double without = 0;
  bool reproduces = false;  // quantized alone, it diverges
  bool cures = false;       // kept in float, the divergence is gone
  // The causes found before this one, kept in float with it in the `without` pass.
  std::vector<std::string> also_in_float;
};

struct Attribution {
  Divergence divergence;
  double measure = 0;    // with every quant point quantized
  int64_t elements = 0;  // comparisons: results compared over all batches
  // Most responsible first. Empty when the weights' fake quantization alone diverges.
  std::vector<Cause> causes;
  bool weights_alone = false;
  double weights_measure = 0;  // weights_alone: the measure with every activation quant point in float
  // weights_alone: the measure with the weights in float and every activation quant point
  // quantized, when that diverges too (each alone is enough).
  std::optional<double> activations_alone;
  // The weights' fake quantization diverges too, but causes only a small part (1 of 62 flips in
  // public round 11's FCOS): its measure with every activation quant point in float. The
  // causes are then what diverges beyond it.
  std::optional<double> weights_part;
  int passes = 0;  // simulated passes this divergence needed (ones shared with others count once)
  // The search for further causes stopped at the budget of passes (AttributionSetup::max_passes):
  // the causes found may not be all.
  bool search_cut = false;
};

// One quant point's share of the error: each output's SQNR and the flipped comparison results
// with only it quantized, and with every point but it quantized (PyTorch Numeric Suite's and
// AIMET's per-quant-point sensitivity, at the user's lines).
struct Sensitivity {
  std::string point;
  std::vector<double> sqnr_alone, sqnr_without;  // per output
  int64_t flips_alone = 0, flips_without = 0;
};

struct Report {
  std::string model;
  int bits = 16;
  // The --bits the user gave when the model's own quant ranges (stored scales, int8 kernels)
  // decided the width instead, else 0 (public round 26: `sim --bits 8` and the default gave
  // identical reports with no word that --bits was not applied).
  int bits_not_applied = 0;
  int batches = 0;
  bool random_inputs = false;
  // Options::threads: how many batches ran at once (1: one after another), and why not more
  // when more were asked for ("forward draws random numbers (aten::rand_like)"), else "".
  int batches_at_once = 1;
  std::string batches_in_order;
  // The quantized engine that ran a converted model's int8 kernels, and the CPU's features that
  // matter to another engine's results (sim/engine.h).
  std::string engine;
  std::string cpu;
  std::vector<QuantPointResult> points;
  std::vector<OutputResult> outputs;
  std::vector<ComparisonResult> comparisons;
  // A converted (int8) model: the quantized kernels it ran as they are, against a float
  // reference of the same model with dequantized weights. `no_float_reference` says why there
  // was none (an int8 op without a float form): then both runs are the int8 model.
  std::vector<std::string> int8_ops;
  std::string no_float_reference;
  // The dtype of each forward input in the first batch (Unknown for non-tensors): what a
  // TorchScript archive does not record, and the rules want (a bool mask input).
  std::vector<ir::DType> input_dtypes;
  // Per forward input: a float tensor that held only 0 and 1 in every batch (a padding mask
  // given as floats), which a traced archive cannot tell from data.
  std::vector<bool> zero_one_inputs;
  // One per Options::calibrate_values (path: the value's name), when the float run reached it:
  // its observed range and the symmetric scale and zero point MinMaxObserver gives it.
  std::vector<QuantPointResult> calibrated_values;
  // Options::attribute: one per divergence, in the order of the report's comparisons then its
  // outputs; `attribution_passes` in all. `no_attribution` says why there is none (a converted
  // model, whose int8 kernels cannot be quantized one point at a time), else "".
  std::vector<Attribution> attributions;
  int attribution_passes = 0;
  std::string no_attribution;
  // The divergences left unattributed (past kMaxAttributedDivergences, or beyond the budget of
  // passes), the budget, whether the user gave it, and the values a pass quantizes, which set it.
  std::vector<Divergence> unattributed;
  int attribution_budget = 0;
  bool attribution_budget_given = false;
  int64_t attribution_pass_values = 0;
  // Options::sensitivity: one per reached quant point, most harmful first.
  std::vector<Sensitivity> sensitivity;
  // Options::layers: in the order the float run first computed them. `layers_not_compared`
  // counts the values whose float side did not fit into `layers_memory_mib` (or that the
  // simulated run computed more often than the float one).
  bool layers_requested = false;
  std::vector<LayerResult> layers;
  int64_t layers_not_compared = 0;
  int64_t layers_memory_mib = 0;
  std::optional<double> layers_min_sqnr_db;  // Options::min_sqnr_db: the text marks the first row under it
};

// Throws SimError.
Report simulate(const std::string& model_path, const Inputs& inputs, const Options& options);
// The same on a model already loaded from `model_path` (run on the inputs' shapes, instrumented
// only in clones: left as it was).
Report simulate(torch::jit::Module& model, const std::string& model_path, const Inputs& inputs, const Options& options);

}  // namespace qlint::sim
