// The IR's text form: what `qlint dump` prints and what test fixtures are written in.
//
//   qlint-ir 1
//   model "s1.pt"
//   module "" "__torch__.S1"
//   module "quant" "__torch__.torch.ao.quantization.stubs.QuantStub"
//   source "s1.py" 20 "        mask = x[:, :, :, -1] == 1"
//   func "forward" in "" (%self : Module<>, %x : Tensor) {
//     %q : Tensor = prim::CallMethod[name="forward", callee="quant.forward"](%quant, %x)
//     %m : Tensor = aten::eq(%q, %one) loc("s1.py":20:16-20:35)
//     return (%m)
//   }
//
// The C++ front end's models add `language "cxx"` after the model line, `display "..." line N`
// to a quant point's module line (how messages name the quantize call, and its line) and
// `entry` after a function's module (its parameters are the program's inputs); `qlint cxx`
// carries each file's model out of the process that parsed it in this form.
//
// `#` starts a comment that runs to the end of the line; fixtures put expectations there.
#pragma once

#include <functional>
#include <map>
#include <stdexcept>
#include <string>

#include "ir/ir.h"

namespace qlint::ir {

// Optional per-node comment appended to the node's line (analysis facts for `qlint dump
// --facts`); the parser skips comments, so annotated text still reads back.
using NodeAnnotator = std::function<std::string(const Node&)>;

std::string print_model(const Model& model, const NodeAnnotator& annotate = {});
std::string print_type(const Type& type);
std::string print_attr(const Attr& attr);

struct ParseError : std::runtime_error {
  ParseError(int line, const std::string& message)
      : std::runtime_error("line " + std::to_string(line) + ": " + message), line(line) {}
  int line;
};

struct ParsedModel {
  Model model;
  std::map<const Node*, int> node_lines;  // 1-based line of the text each node was read from
};

// Throws ParseError naming the line on malformed text.
ParsedModel parse_model(const std::string& text);

}  // namespace qlint::ir
