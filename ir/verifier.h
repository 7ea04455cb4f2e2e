#pragma once

#include <string>
#include <vector>

#include "ir/ir.h"

namespace qlint::ir {

// Checks the structural invariants every pass relies on: each value is defined once and
// before every use (in its block or an enclosing one), use lists match inputs, calls name
// functions that exist, and module-typed values name known module instances.
// Returns one message per problem, each saying where ("in head.forward: node aten::eq: ...").
std::vector<std::string> verify(const Model& model);

// What of the model's shape is past qlint's bounds (kMaxNesting, kMaxCallDepth), said as the
// user's code made it, or "": the input's size, not a bug. ir::verify reports it too; a front
// end asks when verify fails, to say which (so a valid model pays for one walk, not two).
std::string beyond_limits(const Model& model);

}  // namespace qlint::ir
