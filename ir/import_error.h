// The error every front end throws for a file it cannot read.
#pragma once

#include <stdexcept>

namespace qlint::ir {

// An input problem, worded for the user in one line without the file name (the caller
// prefixes it): "not a zip archive", "not valid JSON: ...", ...
struct ImportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace qlint::ir
