// An operator's schema as LibTorch declares it, e.g.
//   aten::to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, ...) -> Tensor(a)
// Front ends record the schema each node was matched against (node attribute `schema`), so
// the analyses read an argument by its name whatever the overload, and know from the alias
// annotations which outputs share memory with which operands (`Tensor(a)`: a view) and which
// operands an op writes (`Tensor(a!)`), for every op LibTorch knows, without lists of ops.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.h"

namespace qlint::ir {

struct SchemaArgument {
  std::string name;                          // "self", "dtype"; "" for an unnamed return
  std::string type;                          // "Tensor", "ScalarType?", "int[]", "t[]" (without the annotation)
  std::string alias_set;                     // "a" for Tensor(a) and Tensor(a!) and Tensor(a -> *); "" when none
  bool writes = false;                       // Tensor(a!): the op writes this argument in place
  bool into_wildcard = false;                // Tensor(a -> *) or t(*): stored into (or taken from) a container
  bool keyword_only = false;                 // after `*`
  std::optional<std::string> default_value;  // "False", "None", "[1, 1]"
};

struct Schema {
  std::string name;      // "aten::to"
  std::string overload;  // "dtype"; "" for the default overload
  std::vector<SchemaArgument> arguments;
  std::vector<SchemaArgument> returns;
  bool vararg = false;  // `...`: takes more operands than it names

  // The position of the argument called `name`, if the schema has one.
  std::optional<size_t> argument_index(std::string_view name) const;
};

// Parses LibTorch's schema syntax (FunctionSchema's printed form). nullopt when it is not one.
std::optional<Schema> parse_schema(std::string_view text);

// The schema a front end recorded on `node` (attribute `schema`), parsed once per spelling;
// null when there is none (prim:: nodes, fixtures that leave it out) or it does not parse.
const Schema* schema_of(const Node& node);

// The operand passed as the schema argument `name`; null when the node has no schema, the
// schema has no such argument, or the node omits it (a trailing default).
// An FX call of a Python function (no schema) is read by the names of the function's
// parameters (attribute `parameters`).
const Value* named_operand(const Node& node, std::string_view name);
const Value* python_operand(const Node& node, std::string_view name);

// Whether output `output` may share memory with operand `operand`: both carry the same alias
// set in the schema (`Tensor(a) self -> Tensor(a)`). nullopt when the node has no schema.
std::optional<bool> output_aliases_operand(const Node& node, size_t output, size_t operand);

// Whether the op writes operand `operand` in place (`Tensor(a!)`, `t[](a!)`), or stores it
// into a container it writes (`l.append(v)`: `t(c -> *) el`). nullopt when the node has no
// schema.
std::optional<bool> writes_operand(const Node& node, size_t operand);

}  // namespace qlint::ir
