// What LibTorch's interpreter cannot run, predicted before it tries. When it prepares a graph
// to run, it recurses once per operation along a chain of operations that feed each other
// (torch/csrc/jit/runtime/interpreter: CanEmitInline and the emitter); PyTorch itself overflows
// its 8 MiB main-thread stack on a scripted chain of about 6,000 statements (7,000 with the
// optimising executor off). qlint runs LibTorch on a 256 MiB stack (ir/large_stack.h), where a
// chain of 50,000 operations (the limit chain-length, ir/input_file.h) uses about a quarter of
// it, and refuses longer chains in one line instead of crashing.
#pragma once

#include <torch/script.h>

#include <cstddef>
#include <string>

namespace qlint::torchscript {

// The longest chain of operations, each an input of the next, in any graph `module` runs (its
// methods, its submodules' and the functions they call), and the method it is in.
struct LongestChain {
  size_t length = 0;
  std::string function;
};
LongestChain longest_chain(const torch::jit::Module& module);

// Why LibTorch cannot run `module` ("" when it can), for a message that begins with the model's
// name and says what the user can do.
std::string interpreter_limit_exceeded(const torch::jit::Module& module);

}  // namespace qlint::torchscript
