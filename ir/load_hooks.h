// Whether loading a TorchScript archive would run code the archive carries. LibTorch 1.13's
// deserializer calls a class's `__setstate__` on every object of that class it unpickles, and has
// no option to skip it; the class's methods are compiled from the archive's `code/` records. So
// an archive runs its own code on load exactly when one of its classes defines `__setstate__`.
// LibTorch-free, so that the decision is unit-tested and fuzzed on its own.
#pragma once

#include <string>
#include <vector>

namespace qlint::ir {

// Where a code record makes loading run code: "line 12 defines __setstate__ (class Payload)",
// or, when the name is there but not as a definition qlint recognises (in a comment, a string,
// an odd spelling), "line 3 names __setstate__". qlint cannot be sure the second kind is
// harmless, so both count (docs/reliability.md).
struct LoadHook {
  int line = 0;
  bool definition = false;  // `def __setstate__` in any spelling TorchScript accepts
  std::string class_name;   // the class it is in, when known
  std::string describe() const;
};

// Every load hook in the text of one TorchScript code record (`code/**.py`): definitions of
// `__setstate__` found by tokenizing it as Python (blanks and tabs, form feeds, `\` line
// continuations, comments, decorators and any class nesting), and every other occurrence of the
// name anywhere in the bytes. Linear in the text; never recurses.
std::vector<LoadHook> load_hooks(const std::string& code);

// Whether LibTorch may compile a record of an archive as code: its name (inside the archive's
// folder) starts with `code/` or ends in `.py`, compared without case as LibTorch's zip reader
// (miniz) compares names, but not the debug info beside it (`.py.debug_pkl`).
bool is_code_record(const std::string& name);

}  // namespace qlint::ir
