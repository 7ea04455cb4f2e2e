// The one mutator of LibTorch graphs. The fixer uses it through ir::GraphRewriter (edits named
// by IR nodes, mapped to the module's graph through their `origin`); the simulator uses its
// LibTorch-level operations to instrument a copy of the model. Nothing else changes a graph.
#pragma once

#include <torch/script.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/graph_rewriter.h"

namespace qlint::torchscript {

namespace jit = torch::jit;

// Where each value of `graph` stands, as a name that survives copying the graph (a module's
// clone, which the simulator instruments): "in0" for the graph's first input, "n12.0" for the
// first output of the 13th node in pre-order (nested blocks included), "n12.b1.0" for a
// parameter of that node's second block. Debug names do not survive: a value without a name
// of its own is numbered anew in each copy.
std::map<const jit::Value*, std::string> value_positions(const jit::Graph& graph);

class GraphRewriter final : public ir::GraphRewriter {
 public:
  // Rewrites the graphs of `root` and its submodules (a handle: the module itself changes).
  explicit GraphRewriter(jit::Module root) : root_(std::move(root)) {}

  // ---- ir::GraphRewriter: edits named by IR nodes of a model imported from `root` ----
  ir::GraphValue value_of(const ir::Value& value) override;
  ir::GraphValue input_of(const ir::Node& node, size_t index) override;
  ir::GraphValue insert_op(const ir::Node& before, const std::string& kind,
                           const std::vector<ir::OpArg>& args) override;
  std::vector<ir::GraphValue> insert_copy_after(const ir::Node& original,
                                                const std::vector<std::optional<ir::GraphValue>>& inputs) override;
  std::vector<ir::GraphValue> add_loop_carried(const ir::Node& loop, const std::vector<ir::GraphValue>& initial,
                                               const NextIteration& next) override;
  std::vector<ir::GraphValue> add_branch_outputs(const ir::Node& branch,
                                                 const std::vector<std::vector<ir::GraphValue>>& per_block) override;
  std::vector<ir::GraphValue> call_copy_with_extra_arguments(const ir::Node& call, const ir::Function& callee,
                                                             const std::vector<ir::GraphValue>& extra) override;
  std::vector<ir::GraphValue> call_copy_returning_more(const ir::Node& call, const ir::Function& callee,
                                                       const MoreReturns& more) override;
  void inline_call(const ir::Node& call, const ir::Function& callee) override;
  void unroll_loop(const ir::Node& loop, int64_t trips) override;
  void add_submodule_clone(const std::string& owner_path, const std::string& name,
                           const std::string& template_path) override;
  FakeQuantStart add_fake_quant_clone(const std::string& owner_path, const std::string& name,
                                      const std::string& template_path, const FakeQuantStart& start) override;
  bool added_clone(const std::string& owner_path, const std::string& name) const override;
  ir::GraphValue insert_get_attr(const ir::Node& before, ir::GraphValue object, const std::string& name) override;
  ir::GraphValue insert_forward_call(const ir::Node& before, ir::GraphValue module, ir::GraphValue argument) override;
  void replace_input(const ir::Node& node, size_t index, ir::GraphValue value) override;
  void replace_uses(const ir::Node& node, ir::GraphValue value) override;
  void replace_quant_call(const ir::Node& call, ir::GraphValue value) override;
  void erase_when_unused(const ir::Node& node) override;

  // How the FakeQuantize clone `name` on `owner_path` started (add_fake_quant_clone), if one was
  // made: the scale a fused one computed for itself.
  std::optional<FakeQuantStart> fake_quant_clone_start(const std::string& owner_path, const std::string& name) const;

  // Erases the nodes marked by erase_when_unused that nothing reads, repeatedly, so whole
  // chains that a rewrite bypassed go. Call once the edits of a round are applied.
  void finish();

  // ---- LibTorch-level operations, for graphs not mirrored in IR (the simulator) ----

  // Inserts `op(inputs...)` right after `node`, typed like `node`'s output; every later use of
  // that output reads the new node's instead.
  jit::Node* insert_after(jit::Node* node, const std::string& op, const std::vector<jit::Value*>& inputs);
  // The same for output `output` of a node with several (sort's indices).
  jit::Node* insert_after_output(jit::Node* node, size_t output, const std::string& op,
                                 const std::vector<jit::Value*>& inputs);

  // Inserts `op(value, constants...)` right where `value` is defined (after its node, or first
  // in the graph for a parameter), typed like `value`; every later use of `value` reads the new
  // node's output instead.
  jit::Node* insert_after_value(jit::Value* value, const std::string& op, const std::vector<c10::IValue>& constants);

  // Replaces `node` by `op(inputs...)`, typed like its output.
  jit::Node* replace_with(jit::Node* node, const std::string& op, const std::vector<jit::Value*>& inputs);

  // Inserts `op(args...)` before `before`, matched against the operator's schema, with
  // `before`'s source range. Several results come back as a tuple (see unpack).
  jit::Value* insert_call(jit::Node* before, const std::string& op, const std::vector<jit::NamedValue>& args);

  // The elements of a tuple value, unpacked before `before`.
  std::vector<jit::Value*> unpack(jit::Node* before, jit::Value* tuple);

  // Every use of each of `node`'s outputs reads the matching one of `values` (one per output)
  // instead, and `node` goes.
  void replace_and_erase(jit::Node* node, const std::vector<jit::Value*>& values);
  // Destroys a node, and forgets it as a candidate for erasing.
  void destroy(jit::Node* node);

  // Inserts a constant before `before`.
  jit::Value* insert_constant(jit::Node* before, const c10::IValue& value);

  // Points a prim::CallFunction at a copy of its function of this rewriter's own, so changes to
  // that copy's graph leave the function alone for every other module that shares it (a cloned
  // module shares its free functions with the original). One copy per function; returns its
  // graph, or null when the callee has no graph.
  std::shared_ptr<jit::Graph> own_copy_of_callee(jit::Node* call_function);

  // Scales the first output of `forward` by 1.0001: the tests' failpoint for a fix that must
  // fail verification.
  void corrupt_first_output();

 private:
  jit::Module module_at(const std::string& path);
  // Every module instance of `module`'s class (the class holds the methods a fix edits).
  std::vector<jit::Module> instances_of_class(const jit::Module& module);
  // Registers `clone` as the submodule `name` of every instance of the owner's class.
  void register_clone(const std::string& owner_path, const std::string& name, const jit::Module& clone);
  // Gives a call of a clone, and the clone's ops, the Python line of the node `at` it serves.
  void place_clone_at(jit::Node& at, jit::Node& call, jit::Value& self);
  // The LibTorch node or value an IR node or value stands for now: its origin, or its
  // counterpart in a callee copy made by call_copy_with_extra_arguments.
  jit::Node* node_for(const ir::Node& node) const;
  jit::Value* value_for(const ir::Value& value) const;
  // A copy of `call`'s callee with more parameters of the `extra` types, which `call` now calls.
  jit::Function& retarget_to_copy(jit::Node* call, const std::vector<c10::TypePtr>& extra, jit::Graph*& from);
  void redirect_into(const ir::Function& callee, jit::Graph& from, jit::Graph& copy);
  // Points `callee`'s IR nodes and values at their counterparts in `nodes` and `values`, keyed
  // by what they stand for now.
  void redirect(const ir::Function& callee, const std::map<jit::Node*, jit::Node*>& nodes,
                const std::map<jit::Value*, jit::Value*>& values);

  jit::Module root_;
  std::map<const ir::Node*, jit::Node*> node_redirects_;
  std::map<const ir::Value*, jit::Value*> value_redirects_;
  std::vector<jit::Node*> erase_candidates_;
  // Nodes destroyed by this rewriter (an unrolled loop and its body, an inlined call): an edit
  // naming one is refused, never carried out on freed memory.
  std::set<const jit::Node*> destroyed_;
  void remember_destroyed(jit::Node* node);
  std::map<const jit::Function*, jit::Function*> function_copies_;
  std::map<std::string, FakeQuantStart> clone_starts_;  // "owner.name"
  std::set<std::string> added_clones_;                  // "owner.name"
  std::set<const c10::ClassType*> clone_classes_;       // their module classes
  const ir::Node* last_inlined_ = nullptr;              // the call inline_call inlined last
};

}  // namespace qlint::torchscript
