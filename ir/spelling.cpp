#include "ir/spelling.h"

#include "ir/ops.h"

namespace qlint::ir {

const Spelling& spelling(const Model& model) {
  static const Spelling python{"`.to(torch.float)`",
                               "QuantStub",
                               "a QuantStub of its own",
                               "its own QuantStub",
                               "torch.",
                               "the QuantStub",
                               "`torch.round(x).long()`",
                               "a new QuantStub `self.{stub}`",
                               "the stub"};
  static const Spelling cxx{"`.to(torch::kFloat)`",
                            "quantize call",
                            "a quantize call of its own",
                            "its own quantize call",
                            "torch::",
                            "the quantize call",
                            "`torch::round(x).to(torch::kLong)`",
                            "a quantize call of its own",
                            "the quantize call"};
  return model.language == Language::Cxx ? cxx : python;
}

std::string op_spelling(const Model& model, const std::string& kind) {
  return spelling(model).op_prefix + base_op(kind);
}

std::string node_spelling(const Model& model, const Node& node) {
  // An ONNX model's nodes have names of their own, which its tools (Netron) find them by.
  if (const Attr* onnx_node = node.attr("onnx_node"); onnx_node != nullptr && onnx_node->kind == Attr::Kind::Str)
    return onnx_node->s;
  if (model.language != Language::Cxx) return node.kind;
  if (node.kind == "prim::CallMethod" && !node.inputs.empty())
    for (const auto& m : model.modules)
      if (m.path == node.inputs[0]->type.name && !m.display.empty()) return m.display;
  if (const Attr* callee = node.attr("callee"); callee != nullptr && callee->kind == Attr::Kind::Str) return callee->s;
  if (node.kind.rfind("cxx::", 0) == 0) return node.kind.substr(5);
  return node.kind;
}

}  // namespace qlint::ir
