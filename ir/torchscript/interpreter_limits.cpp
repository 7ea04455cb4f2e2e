#include "ir/torchscript/interpreter_limits.h"

#include <string>
#include <unordered_map>
#include <vector>

#include "ir/input_file.h"
#include "ir/torchscript/graph_walk.h"

namespace qlint::torchscript {

namespace jit = torch::jit;

namespace {

// The longest chain in one graph. Blocks are visited from a work list, never by recursion:
// the chains and the nesting are the user's.
size_t longest_chain_in(const jit::Graph& graph) {
  std::unordered_map<const jit::Value*, size_t> depth;
  auto depth_of = [&](const jit::Value* v) {
    auto it = depth.find(v);
    return it == depth.end() ? size_t{0} : it->second;
  };
  size_t longest = 0;
  std::vector<const jit::Block*> blocks{graph.block()};
  while (!blocks.empty()) {
    const jit::Block* block = blocks.back();
    blocks.pop_back();
    for (const jit::Node* node : block->nodes()) {
      size_t here = 0;
      for (const jit::Value* input : node->inputs()) here = std::max(here, depth_of(input));
      ++here;
      longest = std::max(longest, here);
      for (const jit::Value* output : node->outputs()) depth[output] = here;
      for (const jit::Block* inner : node->blocks()) {
        for (const jit::Value* param : inner->inputs()) depth[param] = here;
        blocks.push_back(inner);
      }
    }
  }
  return longest;
}

}  // namespace

LongestChain longest_chain(const jit::Module& module) {
  LongestChain out;
  for_each_graph(module, [&](const jit::Graph& graph, const std::string& name) {
    size_t length = longest_chain_in(graph);
    if (length > out.length) out = {length, name};
  });
  return out;
}

std::string interpreter_limit_exceeded(const jit::Module& module) {
  LongestChain chain = longest_chain(module);
  if (chain.length <= ir::limits().chain_length) return "";
  // LibTorch's interpreter prepares such a chain by recursing once per operation.
  return ir::limit_error("its " + chain.function +
                             " is one chain of operations, each feeding the next, too long for "
                             "LibTorch's interpreter to prepare safely: its length",
                         "chain-length", chain.length) +
         " (docs/reliability.md); a loop instead of repeated statements keeps chains short, and qlint checks the "
         "model without running it (no --input)";
}

}  // namespace qlint::torchscript
