// Work that recurses once per level of what the user wrote, in code qlint does not own:
// LibTorch's interpreter compiles a graph recursively along its chains of operations (a
// 6,000-statement chain overflows the 8 MiB main-thread stack in PyTorch itself), and Clang's
// parser recurses per nesting level. Such work runs on a thread of its own with a large stack,
// so the limits qlint predicts and states (docs/reliability.md) are far from where the stack
// would end.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <utility>

namespace qlint::ir {

// Reserved address space, not memory: only the pages a deep recursion touches are used.
inline constexpr size_t kLargeStackBytes = size_t{256} << 20;

// Runs `work` on a thread with a stack of `bytes` and waits for it; an exception it throws is
// rethrown here. Where no such thread can be made (an address-space limit), it runs here.
void run_on_large_stack(const std::function<void()>& work, size_t bytes = kLargeStackBytes);

template <typename Work>
auto on_large_stack(Work&& work) -> decltype(work()) {
  std::optional<decltype(work())> result;
  run_on_large_stack([&] { result.emplace(work()); });
  return std::move(*result);
}

}  // namespace qlint::ir
