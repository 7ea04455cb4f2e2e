// Walking every graph a TorchScript module can run, for the checks that must see all of its
// code before running it (interpreter limits, whether batches may run in parallel).
#pragma once

#include <torch/script.h>

#include <functional>
#include <string>

namespace qlint::torchscript {

// Each method of `module` and of its submodules, then each free function they call
// (prim::CallFunction), transitively; each graph once. `name` is "features.0.forward" for a
// method, the function's name for a function.
using GraphVisitor = std::function<void(const torch::jit::Graph& graph, const std::string& name)>;
using BlockFilter = std::function<bool(const torch::jit::Node& node, size_t block)>;
void for_each_graph(const torch::jit::Module& module, const GraphVisitor& visit);

// The graph of `entry` and of each function and method it calls (prim::CallFunction,
// prim::CallMethod), transitively: the code a call of `entry` can run. `name` is the function's
// name. With `enters`, calls in the nested blocks it refuses do not count (for_each_node).
void for_each_graph_run_by(const torch::jit::Function& entry, const GraphVisitor& visit,
                           const BlockFilter& enters = nullptr);

// Every node of `block` and of the blocks nested in it, from a work list (no recursion: the
// nesting is the user's). With `enters`, only the nested blocks it accepts (a node and the
// index of one of its blocks).
void for_each_node(const torch::jit::Block& block, const std::function<void(const torch::jit::Node& node)>& visit,
                   const BlockFilter& enters = nullptr);

}  // namespace qlint::torchscript
