// The user's source text behind IR nodes: a range's text, how an operand was written, a
// value's name. Front-end neutral (the lines come from the model's debug info), used by rules
// for messages and by the rewriter for Python edits.
#pragma once

#include <optional>
#include <string>

#include "ir/ir.h"

namespace qlint::ir {

// The text of a single-line source range, from the model's recorded lines ("" if unknown).
std::string source_text(const Model& model, const SourceLoc& loc);

// How the user wrote operand `index` of `consumer`: the operand's own source range when it
// lies inside the consumer's (`x[:, :, :, -1]` in `x[:, :, :, -1] == 1`), else its side of the
// consumer's `a op b` text, else its name, else "" for an unnamed temporary.
std::string operand_text(const Model& model, const Node& consumer, size_t index);
// The operator as the source writes `node`: `*=` for an in-place `aten::mul_` written
// `q *= keep`, else ir::operator_spelling (`*` for aten::mul, `mul_` for `q.mul_(keep)`).
std::string written_operator(const Model& model, const Node& node);
// The same, as a source range (nullopt when only the name is known).
std::optional<SourceLoc> operand_location(const Model& model, const Node& consumer, size_t index);

// Where the user's source reads the variable that is operand `index` of `consumer`: the
// operand's own range when it is the name, or the one place the name occurs in the first
// statement with a user location that the consumer's result flows into (a ListConstruct has
// no range of its own; TorchScript inlines `1.0 - x` from its builtins, on "<string>" lines).
// Nullopt when the name occurs there twice or not at all.
std::optional<SourceLoc> variable_read_by(const Model& model, const Node& consumer, size_t index);

// The user's name for a value ("mask" for TorchScript's "mask.1"), looking through views and
// indexing (`mask[:, None]` is "mask"), or "" for temporaries.
std::string display_name(const Value* v);
// The same as the user's source writes it, where the archive renamed it: the variable its
// statement assigns (a trace's `keep0` in a loop's copy is `keep`), a variable assigned again
// without TorchScript's number (`maxvals0` is `maxvals`).
std::string written_name(const Model& model, const Value* v);
// The variable a statement `name = <the value's expression>` assigns it to, "" when none: also for
// a value with no name of its own (a trace's `X`, the name of the FakeQuantize's parameter).
std::string assigned_name(const Model& model, const Value* v);

// TorchScript sometimes ends a range one character early (`x[:, -1:` for `x[:, -1:]`,
// `t.sum(dim=1).clam` for `t.sum(dim=1).clamp`, `1.0 - q).to` for `(1.0 - q).to`). On a
// single-line range of `line`, extends the end over a cut identifier and over closing brackets
// the range opened but did not close, and the start over opening brackets it closes.
SourceLoc complete_range(const std::string& line, SourceLoc loc);

// The module instance whose `self` a node's Python line means: what the front end recorded (FX
// inlines submodules into one graph), else the module of the IR function that holds the node.
// None when the line is in a function without a module `self`.
std::optional<std::string> python_self_module(const Model& model, const Node& node);

// Whether two nodes come from one Python function of one module instance, as far as the front
// end says; TorchScript's IR keeps functions apart already.
bool same_python_function(const Node& a, const Node& b);

}  // namespace qlint::ir
