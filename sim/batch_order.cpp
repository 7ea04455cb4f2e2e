#include "sim/batch_order.h"

#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <set>

#include "ir/ops.h"
#include "ir/torchscript/graph_walk.h"

namespace qlint::sim {

namespace {

namespace jit = torch::jit;

bool takes_a_generator(const jit::Node& node) {
  if (!node.kind().is_aten()) return false;
  for (const auto& op : jit::getAllOperatorsFor(node.kind()))
    for (const auto& argument : op->schema().arguments())
      if (argument.type()->str().find("Generator") != std::string::npos) return true;
  return false;
}

bool draws_random_numbers(const jit::Node& node) {
  return ir::is_sampling_op(node.kind().toQualString()) || takes_a_generator(node);
}

// Whether the op's output is (a part of) its first input, as its schema says: a view,
// `__getitem__`, `list.append`'s result.
bool output_aliases_first_input(const jit::Node& node) {
  const c10::FunctionSchema* schema = node.maybeSchema();
  return schema != nullptr && !schema->returns().empty() && schema->returns()[0].alias_info() != nullptr &&
         !schema->arguments().empty() && schema->arguments()[0].alias_info() != nullptr;
}

// Whether `value` is a module or a part of one: a module's attribute (through views,
// `__getitem__`, unpacking), the attribute's attribute. An object forward creates is not.
bool part_of_module_state(const jit::Value* value) {
  static const std::set<c10::Symbol> unpacking = {c10::prim::ListUnpack, c10::prim::TupleUnpack, c10::prim::TupleIndex,
                                                  c10::prim::GetAttr};
  for (;;) {
    if (auto cls = value->type()->cast<c10::ClassType>(); cls && cls->is_module()) return true;
    const jit::Node* node = value->node();
    if (node->inputs().empty() || (unpacking.count(node->kind()) == 0 && !output_aliases_first_input(*node)))
      return false;
    value = node->input(0);
  }
}

// Whether a list or dict is certainly one the running code made: built in its graph
// (`[]`, `{}`, `list(x)`), or an argument of the model's forward (each batch gets a copy of its
// inputs). A list reached any other way (a helper's parameter, what a call or a branch gives)
// may be a module's: appending to it from two threads at once could corrupt it.
bool made_by_this_run(const jit::Value* container, const jit::Graph* root) {
  for (;;) {
    if (auto cls = container->type()->cast<c10::ClassType>(); cls && cls->is_module()) return false;
    const jit::Node* node = container->node();
    if (node->kind() == c10::prim::Param) return node->owningGraph() == root && container->offset() > 0;
    if (node->kind() == c10::prim::ListConstruct || node->kind() == c10::prim::DictConstruct) return true;
    if (node->kind() == c10::prim::GetAttr || node->inputs().empty()) return false;
    const c10::FunctionSchema* schema = node->maybeSchema();
    if (schema == nullptr || node->kind().is_prim()) return false;  // a call, a branch, unpacking
    const bool aliases = !schema->returns().empty() && schema->returns()[0].alias_info() != nullptr;
    if (!aliases) return true;  // a new list (aten::list, aten::copy, ...)
    container = node->input(0);
  }
}

// `l.append(x)`, `d[k] = v`, `l.clear()`: a list or dict changed in place.
bool changes_a_container(const jit::Node& node) {
  const c10::FunctionSchema* schema = node.maybeSchema();
  if (schema == nullptr || schema->arguments().empty() || node.inputs().empty()) return false;
  const c10::AliasInfo* alias = schema->arguments()[0].alias_info();
  const c10::TypeKind kind = node.input(0)->type()->kind();
  return alias != nullptr && alias->isWrite() && (kind == c10::TypeKind::ListType || kind == c10::TypeKind::DictType);
}

// An op that writes, in place, into a module attribute (`self.count.add_(1)`,
// `self.cache.append(x)`). Tensors reached through calls and branches are not followed: a write
// into one of them is found after the run (sim/simulator.cpp, run_at_once), since tensors'
// version counters say so, and a race on a tensor's values corrupts no memory.
bool writes_module_state(const jit::Node& node) {
  const c10::FunctionSchema* schema = node.maybeSchema();
  if (schema == nullptr) return false;
  for (size_t i = 0; i < schema->arguments().size() && i < node.inputs().size(); ++i) {
    const c10::AliasInfo* alias = schema->arguments()[i].alias_info();
    if (alias != nullptr && alias->isWrite() && part_of_module_state(node.input(i))) return true;
  }
  return false;
}

// Whether `condition` is False in eval mode: a module's `training` flag (eval() cleared it), a
// constant False, or an `if` whose taken branch gives one (`self.training and ...`).
bool false_in_eval_mode(const jit::Value* condition) {
  for (;;) {
    const jit::Node* node = condition->node();
    if (node->kind() == c10::prim::GetAttr) return node->s(jit::attr::name) == "training";
    if (auto constant = jit::toIValue(condition)) return constant->isBool() && !constant->toBool();
    if (node->kind() != c10::prim::If || !false_in_eval_mode(node->input(0))) return false;
    condition = node->blocks()[1]->outputs()[condition->offset()];
  }
}

// The branches that run in eval mode: not the `then` of `if self.training:`.
bool runs_in_eval_mode(const jit::Node& node, size_t block) {
  return !(node.kind() == c10::prim::If && block == 0 && false_in_eval_mode(node.input(0)));
}

std::string why_in_order(const jit::Node& node, const std::string& function, const jit::Graph* root) {
  const std::string kind = node.kind().toQualString();
  if (draws_random_numbers(node)) return function + " draws random numbers (" + kind + ")";
  if (node.kind() == c10::prim::SetAttr && part_of_module_state(node.input(0)))
    return function + " sets the module's attribute `" + node.s(jit::attr::name) + "`";
  if (writes_module_state(node)) return function + " writes into the module's state in place (" + kind + ")";
  if (changes_a_container(node) && !made_by_this_run(node.input(0), root))
    return function + " changes a list or dict it did not make (" + kind + ")";
  // A forked subgraph, a method of a module interface (a ModuleDict's entry): code the walk
  // does not reach.
  const bool interface_call = node.kind() == c10::prim::CallMethod && !node.inputs().empty() &&
                              node.input(0)->type()->cast<c10::InterfaceType>() != nullptr;
  if (node.kind() == c10::prim::fork || interface_call)
    return function + " calls code qlint does not follow (" + kind + ")";
  return "";
}

}  // namespace

std::string why_batches_run_in_order(const jit::Module& module) {
  std::string why;
  auto forward = module.find_method("forward");
  if (!forward) return "";
  const jit::Graph* root = forward->graph().get();
  torchscript::for_each_graph_run_by(
      forward->function(),
      [&](const jit::Graph& graph, const std::string& name) {
        torchscript::for_each_node(
            *graph.block(),
            [&](const jit::Node& node) {
              if (why.empty()) why = why_in_order(node, name, root);
            },
            runs_in_eval_mode);
      },
      runs_in_eval_mode);
  return why;
}

}  // namespace qlint::sim
