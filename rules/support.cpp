#include "rules/support.h"

#include <cctype>
#include <map>
#include <set>

#include "rules/registry.h"

namespace qlint::rules {

std::optional<std::vector<double>> constant_values(const ir::Value* v) {
  const ir::Node* producer = v->producer;
  if (producer == nullptr) return std::nullopt;
  if (producer->kind == "aten::tensor" && !producer->inputs.empty())
    return constant_values(producer->inputs[0]);
  if (producer->kind != "prim::Constant") return std::nullopt;
  const ir::Attr* value = producer->attr("value");
  if (value == nullptr) return std::nullopt;
  switch (value->kind) {
    case ir::Attr::Kind::Int: return std::vector<double>{static_cast<double>(value->i)};
    case ir::Attr::Kind::Float: return std::vector<double>{value->f};
    case ir::Attr::Kind::Bool: return std::vector<double>{value->b ? 1.0 : 0.0};
    case ir::Attr::Kind::Tensor:
      if (value->floats.empty()) return std::nullopt;  // values elided: too large to keep
      return value->floats;
    default: return std::nullopt;
  }
}

namespace {

// Ops that only re-view or re-index their first input: `mask[:, :, :, None]` is still "mask".
bool is_view_op(const std::string& kind) {
  static const std::set<std::string> views = {
      "aten::slice",   "aten::select",  "aten::unsqueeze", "aten::squeeze", "aten::view",
      "aten::reshape", "aten::index",   "aten::permute",   "aten::transpose", "aten::flatten",
      "aten::expand",  "aten::contiguous", "aten::narrow", "aten::t", "aten::__getitem__"};
  return views.count(kind) > 0;
}

std::string own_name(const ir::Value* v) {
  std::string name = v->name;
  auto dot = name.rfind('.');
  if (dot != std::string::npos && dot + 1 < name.size() &&
      std::isdigit(static_cast<unsigned char>(name[dot + 1])))
    name = name.substr(0, dot);
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return "";
  return name;
}

}  // namespace

std::string display_name(const ir::Value* v) {
  for (int depth = 0; v != nullptr && depth < 16; ++depth) {
    std::string name = own_name(v);
    if (!name.empty()) return name;
    if (v->producer == nullptr || !is_view_op(v->producer->kind) || v->producer->inputs.empty())
      return "";
    v = v->producer->inputs[0];
  }
  return "";
}

std::string operand_text(const ir::Model& model, const ir::Value* v) {
  const ir::Node* producer = v->producer;
  if (producer && producer->loc.known() && producer->loc.end_line == producer->loc.line) {
    const std::string* line = model.source_line(producer->loc.file, producer->loc.line);
    size_t start = static_cast<size_t>(producer->loc.column - 1);
    size_t end = static_cast<size_t>(producer->loc.end_column - 1);
    if (line && end <= line->size() && start < end && end - start <= 40)
      return "`" + line->substr(start, end - start) + "`";
  }
  std::string name = display_name(v);
  return name.empty() ? "" : "`" + name + "`";
}

std::string describe_stubs(const analysis::Facts& facts, const ir::Value* v) {
  std::string out;
  const auto& sources = facts.quant_sources(v);
  size_t i = 0;
  for (const auto& source : sources) {
    if (i) out += i + 1 == sources.size() ? " and " : ", ";
    // Stub instances are module paths; in-graph quantize ops are "function:%value".
    out += source.find(':') == std::string::npos ? "`self." + source + "`" : "`" + source + "`";
    ++i;
  }
  return out;
}

std::string base_op(const std::string& kind) {
  std::string op = kind.substr(kind.find("::") == std::string::npos ? 0 : kind.find("::") + 2);
  if (op.size() > 1 && op.back() == '_' && op[op.size() - 2] != '_') op.pop_back();
  return op;
}

std::string operator_spelling(const std::string& kind) {
  static const std::map<std::string, std::string> spelling = {
      {"eq", "=="}, {"ne", "!="}, {"mul", "*"}, {"add", "+"},
      {"sub", "-"}, {"div", "/"}, {"rsub", "-"}, {"true_divide", "/"}};
  auto it = spelling.find(base_op(kind));
  return it == spelling.end() ? base_op(kind) : it->second;
}

Diagnostic make_diagnostic(const Rule& rule, const ir::Function& fn, const ir::Node& node,
                           std::string message) {
  Diagnostic d;
  d.rule = rule.id;
  d.severity = rule.severity;
  d.message = std::move(message);
  d.function = &fn;
  d.node = &node;
  d.loc = node.loc;
  return d;
}

}  // namespace qlint::rules
