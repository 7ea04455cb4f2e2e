#include "analysis/constants.h"

namespace qlint::analysis {

namespace {

// Conversions that keep the number: torch.tensor(c), float(t), int(t), t.item().
bool keeps_the_number(const ir::Node& n) {
  static const char* const kConversions[] = {"aten::tensor", "aten::Float",       "aten::Int",
                                             "aten::item",   "prim::NumToTensor", "aten::ScalarImplicit"};
  for (const char* conversion : kConversions)
    if (n.kind == conversion && !n.inputs.empty()) return true;
  return false;
}

}  // namespace

std::optional<std::vector<double>> constant_values(const ir::Value* v) {
  const ir::Node* producer = v->producer;
  // Through any chain of conversions, in a loop: the chain is as long as the model makes it.
  while (producer != nullptr && keeps_the_number(*producer)) producer = producer->inputs[0]->producer;
  if (producer == nullptr) return std::nullopt;
  if (producer->kind != "prim::Constant" && producer->kind != "prim::GetAttr") return std::nullopt;
  const ir::Attr* value = producer->attr("value");
  if (value == nullptr) return std::nullopt;
  switch (value->kind) {
    case ir::Attr::Kind::Int:
      return std::vector<double>{static_cast<double>(value->i)};
    case ir::Attr::Kind::Float:
      return std::vector<double>{value->f};
    case ir::Attr::Kind::Bool:
      return std::vector<double>{value->b ? 1.0 : 0.0};
    case ir::Attr::Kind::Tensor:
      if (value->floats.empty()) return std::nullopt;  // values elided: too large to keep
      return value->floats;
    default:
      return std::nullopt;
  }
}

std::string constant_key(const ir::Value* key) {
  const ir::Node* p = key->producer;
  const ir::Attr* value = p != nullptr && p->kind == "prim::Constant" ? p->attr("value") : nullptr;
  if (value != nullptr && value->kind == ir::Attr::Kind::Str) return "'" + value->s;
  if (value != nullptr && value->kind == ir::Attr::Kind::Int) return std::to_string(value->i);
  return "";
}

std::optional<double> scalar_constant(const ir::Value* v) {
  auto values = constant_values(v);
  if (!values || values->size() != 1) return std::nullopt;
  return values->front();
}

}  // namespace qlint::analysis
