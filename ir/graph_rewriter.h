// The graph edits a fix may make, in terms of qlint's IR: fix kinds (rewriter/edits/) are
// written once against this interface, without LibTorch, and a front end carries them out on
// its own graphs. The TorchScript front end implements it over LibTorch
// (ir/torchscript/graph_rewriter.h); as with MLIR's PatternRewriter, every change to a model's
// graph goes through it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace qlint::ir {

// An edit does not apply to this model (a shared module class, a stub read in an unusual way):
// the fix is skipped, and the message says why.
struct RewriteRefused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A value of the graph being rewritten: the counterpart of an IR value (value_of), or a value
// an inserted node produced. Only the rewriter that made it can read it.
struct GraphValue {
  const void* handle = nullptr;
};

// An operator argument: a graph value, an integer constant or a float constant (a scale).
struct OpArg {
  GraphValue value;
  std::optional<int64_t> integer;
  std::optional<double> real;

  OpArg(GraphValue v) : value(v) {}  // NOLINT(google-explicit-constructor): reads as a call
  static OpArg of_int(int64_t i) {
    OpArg a{GraphValue{}};
    a.integer = i;
    return a;
  }
  static OpArg of_float(double d) {
    OpArg a{GraphValue{}};
    a.real = d;
    return a;
  }
};

class GraphRewriter {
 public:
  virtual ~GraphRewriter() = default;

  // The graph's value for an IR value of the model being rewritten.
  virtual GraphValue value_of(const Value& value) = 0;

  // The value `node` reads as its input `index` now, after the edits made so far.
  virtual GraphValue input_of(const Node& node, size_t index) = 0;

  // Inserts `kind(args...)` before `before`, with `before`'s source range; returns its output.
  virtual GraphValue insert_op(const Node& before, const std::string& kind, const std::vector<OpArg>& args) = 0;

  // Inserts a copy of `original` right after it that reads `inputs[i]` instead of its input i
  // where one is given; returns the copy's outputs. The copy keeps `original`'s source range.
  // (Right after the original, every value the original can read is defined, in its block.)
  virtual std::vector<GraphValue> insert_copy_after(const Node& original,
                                                    const std::vector<std::optional<GraphValue>>& inputs) = 0;

  // Makes `loop` (a prim::Loop) carry more values: the i-th starts as `initial[i]`; `next` gets
  // their values in an iteration (new parameters of the body) and returns their values for the
  // next one. Returns the values after the loop (new outputs). When `next` throws, the new
  // values are carried unchanged, so the graph stays whole, and the exception goes on.
  using NextIteration = std::function<std::vector<GraphValue>(const std::vector<GraphValue>& in_iteration)>;
  virtual std::vector<GraphValue> add_loop_carried(const Node& loop, const std::vector<GraphValue>& initial,
                                                   const NextIteration& next) = 0;

  // Gives `branch` (a prim::If) more outputs: the i-th is `per_block[b][i]` when block b runs.
  virtual std::vector<GraphValue> add_branch_outputs(const Node& branch,
                                                     const std::vector<std::vector<GraphValue>>& per_block) = 0;

  // Makes `call` (a prim::CallMethod or prim::CallFunction of `callee`) call a copy of its
  // callee that takes `extra` as further arguments, leaving the callee for its other callers;
  // returns the copy's new parameters. From then on `callee`'s IR nodes and values stand for
  // the copy's.
  virtual std::vector<GraphValue> call_copy_with_extra_arguments(const Node& call, const Function& callee,
                                                                 const std::vector<GraphValue>& extra) = 0;

  // Makes `call` call a copy of its callee that returns more values beside its own: `more` runs
  // once the copy exists (the callee's IR nodes and values standing for the copy's from then
  // on) and gives those values, inside the copy. Returns them as the caller receives them.
  using MoreReturns = std::function<std::vector<GraphValue>()>;
  virtual std::vector<GraphValue> call_copy_returning_more(const Node& call, const Function& callee,
                                                           const MoreReturns& more) = 0;

  // Replaces `call` (a prim::CallFunction of the free function `callee`) by a copy of the
  // callee's body in the calling graph, so code there can reach the caller's `self` (a new
  // stub needs a module to hold it). The function stays as it was for its other callers. From
  // then on `callee`'s IR nodes and values stand for the copy's.
  virtual void inline_call(const Node& call, const Function& callee) = 0;

  // Replaces the `for` loop `loop` (a prim::Loop whose condition stays true) by `trips` copies
  // of its body in sequence, the iteration number a constant in each; the loop's results are
  // the last copy's carried values. The loop must run exactly `trips` times.
  virtual void unroll_loop(const Node& loop, int64_t trips) = 0;

  // Registers a clone of the module at `template_path` as the submodule `name` of the module at
  // `owner_path` ("" for the root), and of every other instance of the owner's class, which
  // runs the same edited methods. Refuses when `name` is taken.
  virtual void add_submodule_clone(const std::string& owner_path, const std::string& name,
                                   const std::string& template_path) = 0;

  // The same for a clone of a FakeQuantize module (or FusedMovingAvgObsFakeQuantize) that starts
  // at `start`: its scale and zero point, and its observer's running range, so observation
  // re-enabled goes on from there. Its other state (the enabled flags) is the template's.
  // A fused fake quant computes its scale from the running range on every call, in the
  // model's own scheme (affine for PyTorch's default qconfig): its clone gets the range, and
  // the scale and zero point that gives. A `mask` clone must keep 0 and 1 exact. Returns the
  // clone's start as it is; refuses a clone that cannot start so.
  struct FakeQuantStart {
    double scale = 1;
    int64_t zero_point = 0;
    double min = 0;
    double max = 1;
    int64_t quant_min = 0;
    int64_t quant_max = 255;
    bool mask = false;
    // Whole numbers whole_from..whole_up_to (indices, counts, class ids cast to float; a sign's
    // -1..1): the clone starts at scale 1, which keeps them exact, when its scheme allows; else
    // at `scale`. whole_up_to 0: none.
    int64_t whole_up_to = 0;
    int64_t whole_from = 0;
  };
  virtual FakeQuantStart add_fake_quant_clone(const std::string& owner_path, const std::string& name,
                                              const std::string& template_path, const FakeQuantStart& start) = 0;

  // Whether this rewriter registered the clone `name` on `owner_path` (add_submodule_clone,
  // add_fake_quant_clone): a second edit quantizing the same tensor calls that one again.
  virtual bool added_clone(const std::string& owner_path, const std::string& name) const = 0;

  // Inserts the attribute read `object.name` before `before`.
  virtual GraphValue insert_get_attr(const Node& before, GraphValue object, const std::string& name) = 0;

  // Inserts `module.forward(argument)` before `before`, for a submodule returning a tensor.
  virtual GraphValue insert_forward_call(const Node& before, GraphValue module, GraphValue argument) = 0;

  // `node` reads `value` as its input `index`.
  virtual void replace_input(const Node& node, size_t index, GraphValue value) = 0;

  // Every use of `node`'s single output reads `value` instead.
  virtual void replace_uses(const Node& node, GraphValue value) = 0;

  // Every use of the tensor the quant call `call` gives reads `value` instead, and the call
  // goes. A trace that calls one FakeQuantize several times with its observer on threads the
  // observer's state through the calls (`forward1(x, min_val, ...)` returns `(min_val, ...,
  // x_fq)`): a call left out passes on the state it received, as if the module had not seen the
  // tensor. Refused for the first such call, whose state comes from the module's buffers.
  virtual void replace_quant_call(const Node& call, GraphValue value) = 0;

  // Erases `node` once nothing reads its outputs any more, when the rewrite is finished.
  virtual void erase_when_unused(const Node& node) = 0;
};

}  // namespace qlint::ir
