// Following a value through the program's plumbing: wherever it is moved without being
// computed with. Rules that ask "where is this mask used?" need it across the boundaries that
// real model code puts between where a value is made and where it is used: the child module
// it is passed to (an attention layer's `key_padding_mask`), the module that returns it inside
// a tuple (a backbone returning `(mask, features)`), a TorchScript class object holding it
// (`NestedTensor(x, mask)`), a module attribute, an `if` that refines it.
#pragma once

#include <functional>

#include "analysis/facts.h"

namespace qlint::analysis {

// What to do with a node that takes the traced value as an operand.
enum class Use {
  Found,   // the use the caller looks for: stop
  Follow,  // the node's outputs are the value too (a view, a cast): follow them
  Ignore,  // anything else
};

using UseVisitor = std::function<Use(const ir::Node& user, const ir::Value* operand)>;

// Visits every live node that takes `start`, or a value the plumbing made of it, as an
// operand: into call parameters, out of returns to every call site, into and out of
// tuples/lists/dicts by position, through object fields and module attributes (every read of
// what a store wrote), out of `if` blocks. Calls, container ops, stores and reads are the
// plumbing and are not visited; an op that takes a whole list holding the value (`x[mask]`
// indexes with `[mask]`) is visited with the list as the operand, and never followed. True when
// `visit` returned Found.
bool find_use(const Facts& facts, const ir::Value* start, const UseVisitor& visit);

}  // namespace qlint::analysis
