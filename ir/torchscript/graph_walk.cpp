#include "ir/torchscript/graph_walk.h"

#include <torch/csrc/jit/api/function_impl.h>

#include <set>
#include <vector>

namespace qlint::torchscript {

namespace jit = torch::jit;

void for_each_node(const jit::Block& block, const std::function<void(const jit::Node& node)>& visit,
                   const BlockFilter& enters) {
  std::vector<const jit::Block*> blocks{&block};
  while (!blocks.empty()) {
    const jit::Block* current = blocks.back();
    blocks.pop_back();
    for (const jit::Node* node : current->nodes()) {
      visit(*node);
      for (size_t i = 0; i < node->blocks().size(); ++i)
        if (!enters || enters(*node, i)) blocks.push_back(node->blocks()[i]);
    }
  }
}

namespace {

// Visits graph functions once each: those given, then those they call, transitively.
class CallWalk {
 public:
  CallWalk(const GraphVisitor& visit, const BlockFilter& enters) : visit_(visit), enters_(enters) {}

  void function(const jit::Function& fn, const std::string& name) {
    if (!seen_.insert(&fn).second || !fn.isGraphFunction()) return;
    const jit::Graph& graph = *jit::toGraphFunction(fn).graph();
    for_each_node(
        *graph.block(), [&](const jit::Node& node) { note_callee(node); }, enters_);
    visit_(graph, name);
  }

  void callees() {
    while (!callees_.empty()) {
      const jit::Function* fn = callees_.back();
      callees_.pop_back();
      function(*fn, fn->name());
    }
  }

 private:
  void note_callee(const jit::Node& node) {
    if (node.kind() == c10::prim::CallFunction) {
      if (auto callee = node.input(0)->type()->cast<c10::FunctionType>()) callees_.push_back(callee->function());
    } else if (node.kind() == c10::prim::CallMethod) {
      if (auto owner = node.input(0)->type()->cast<c10::ClassType>())
        if (jit::Function* method = owner->findMethod(node.s(jit::attr::name))) callees_.push_back(method);
    }
  }

  const GraphVisitor& visit_;
  const BlockFilter& enters_;
  std::set<const jit::Function*> seen_;
  std::vector<const jit::Function*> callees_;
};

}  // namespace

void for_each_graph(const jit::Module& module, const GraphVisitor& visit) {
  CallWalk walk(visit, nullptr);
  for (const auto& m : module.named_modules())
    for (const auto& method : m.value.get_methods())
      walk.function(method.function(), (m.name.empty() ? "" : m.name + ".") + method.name());
  walk.callees();
}

void for_each_graph_run_by(const jit::Function& entry, const GraphVisitor& visit, const BlockFilter& enters) {
  CallWalk walk(visit, enters);
  walk.function(entry, entry.name());
  walk.callees();
}

}  // namespace qlint::torchscript
