// How messages spell what the user writes, per source language: the front end sets the
// model's language, rules ask here instead of testing which front end ran.
#pragma once

#include <string>

#include "ir/ir.h"

namespace qlint::ir {

struct Spelling {
  std::string float_cast;    // "`.to(torch.float)`"
  std::string stub;          // what quantizes a tensor: "QuantStub"
  std::string own_stub;      // "a QuantStub of its own"
  std::string its_own_stub;  // "its own QuantStub"
  std::string op_prefix;     // "torch." before an ATen function's name
  // A quant point of this language's own (not a QuantStub module): before its float input.
  std::string before_quant_point;
  std::string round_then_cast;  // "`torch.round(x).long()`"
  // What a fix adds and where it reads from, in fix descriptions: "a new QuantStub
  // `self.{stub}`" (rules::kNewStubPlaceholder, named later), "the stub".
  std::string new_stub;
  std::string the_stub;
};

const Spelling& spelling(const Model& model);
// An ATen op as the user writes it: aten::cat is `torch.cat` in Python, `torch::cat` in C++.
std::string op_spelling(const Model& model, const std::string& kind);
// What a node is, for machine-readable output: its IR kind (`aten::eq`, the ATen op a C++
// operator or call dispatches to too), but in C++ a call as written: the quantize call
// (`seed::quantize_int16`) or the function called, not `prim::CallMethod`; in an ONNX model the
// node's name (`/Equal`).
std::string node_spelling(const Model& model, const Node& node);

}  // namespace qlint::ir
