#include "rules/support.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <regex>
#include <set>

#include "analysis/quant_domain.h"
#include "rules/registry.h"

namespace qlint::rules {

namespace {

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
    if (v->producer == nullptr || !analysis::is_view_op(v->producer->kind) || v->producer->inputs.empty())
      return "";
    v = v->producer->inputs[0];
  }
  return "";
}

std::string source_text(const ir::Model& model, const ir::SourceLoc& loc) {
  if (!loc.known() || loc.end_line != loc.line) return "";
  const std::string* line = model.source_line(loc.file, loc.line);
  size_t start = static_cast<size_t>(loc.column - 1);
  size_t end = static_cast<size_t>(loc.end_column - 1);
  if (line == nullptr || end > line->size() || start >= end) return "";
  return line->substr(start, end - start);
}

namespace {

bool strictly_inside(const ir::SourceLoc& inner, const ir::SourceLoc& outer) {
  return inner.known() && inner.file == outer.file && inner.line == outer.line &&
         inner.end_line == outer.line && inner.column >= outer.column &&
         inner.end_column <= outer.end_column && !(inner == outer);
}

// Splits "a * b" at its one top-level occurrence of " op " (outside brackets): the offsets
// where the right operand starts and the left one ends, or nullopt.
std::optional<std::pair<size_t, size_t>> split_binary(const std::string& text, const std::string& op) {
  const std::string sep = " " + op + " ";
  int depth = 0;
  std::vector<size_t> hits;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (depth == 0 && text.compare(i, sep.size(), sep) == 0) hits.push_back(i);
  }
  if (hits.size() != 1) return std::nullopt;
  return std::make_pair(hits[0], hits[0] + sep.size());
}

bool plausible_operand(const std::string& text) {
  return !text.empty() && text.size() <= 40 && text.find(" = ") == std::string::npos;
}

}  // namespace

std::optional<ir::SourceLoc> operand_location(const ir::Model& model, const ir::Node& consumer, size_t index) {
  const ir::Value* v = consumer.inputs.at(index);
  if (v->producer && strictly_inside(v->producer->loc, consumer.loc) &&
      plausible_operand(source_text(model, v->producer->loc)))
    return v->producer->loc;
  std::string text = source_text(model, consumer.loc);
  auto split = split_binary(text, operator_spelling(consumer.kind));
  if (!split || index > 1) return std::nullopt;
  ir::SourceLoc loc = consumer.loc;
  if (index == 0) {
    loc.end_column = consumer.loc.column + static_cast<int>(split->first);
  } else {
    loc.column = consumer.loc.column + static_cast<int>(split->second);
  }
  if (!plausible_operand(source_text(model, loc))) return std::nullopt;
  return loc;
}

std::string operand_text(const ir::Model& model, const ir::Node& consumer, size_t index) {
  if (auto loc = operand_location(model, consumer, index)) return "`" + source_text(model, *loc) + "`";
  std::string name = display_name(consumer.inputs.at(index));
  return name.empty() ? "" : "`" + name + "`";
}

std::string describe_stubs(const analysis::Facts& facts, const ir::Value* v) {
  std::string out;
  const auto& sources = facts.quant_sources(v);
  size_t i = 0;
  for (const auto& source : sources) {
    if (i) out += i + 1 == sources.size() ? " and " : ", ";
    const analysis::QuantPoint* point = facts.quant_point(source);
    out += "`" + (point ? point->display : source) + "`";
    ++i;
  }
  return out;
}

std::string base_op(const std::string& kind) {
  std::string op = kind.substr(kind.find("::") == std::string::npos ? 0 : kind.find("::") + 2);
  if (op.size() > 1 && op.back() == '_' && op[op.size() - 2] != '_') op.pop_back();
  return op;
}

bool is_binary_arithmetic(const std::string& kind) {
  static const std::set<std::string> ops = {"mul", "add", "sub", "div", "rsub", "true_divide"};
  return kind.rfind("aten::", 0) == 0 && ops.count(base_op(kind)) > 0;
}

std::string operator_spelling(const std::string& kind) {
  static const std::map<std::string, std::string> spelling = {
      {"eq", "=="}, {"ne", "!="}, {"mul", "*"}, {"add", "+"},
      {"sub", "-"}, {"div", "/"}, {"rsub", "-"}, {"true_divide", "/"}};
  auto it = spelling.find(base_op(kind));
  return it == spelling.end() ? base_op(kind) : it->second;
}

std::string format_number(double v) {
  char buf[32];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.5g", v);
  }
  return buf;
}

ir::SourceLoc best_location(const ir::Node& node) {
  if (node.loc.known()) return node.loc;
  for (const ir::Value* out : node.outputs)
    for (const ir::Node* user : out->users)
      if (user->loc.known()) return user->loc;
  return node.loc;
}

ir::SourceLoc quant_call_location(const analysis::Facts& facts, const analysis::QuantCall& call) {
  if (call.call->loc.known()) return call.call->loc;
  const analysis::QuantPoint* point = facts.quant_point(call.point);
  if (point && point->node && point->node->loc.known()) return point->node->loc;
  return best_location(*call.call);
}

Diagnostic quant_call_diagnostic(const Rule& rule, const analysis::Facts& facts,
                                 const analysis::QuantCall& call, std::string message) {
  Diagnostic d = make_diagnostic(rule, *facts.function_of(*call.call), *call.call, std::move(message));
  d.loc = quant_call_location(facts, call);
  return d;
}

std::optional<Edit> reroot_edit(const analysis::Facts& facts, const ir::Node& consumer, int operand) {
  const ir::Value* v = consumer.inputs.at(static_cast<size_t>(operand));
  for (int depth = 0; v != nullptr && depth < 32; ++depth) {
    if (const analysis::QuantCall* call = facts.quant_call_producing(v)) {
      if (facts.function_of(*call->call) != facts.function_of(consumer)) return std::nullopt;
      Edit e;
      e.kind = Edit::Kind::Reroot;
      e.node = &consumer;
      e.operand = operand;
      e.stub_call = call->call;
      return e;
    }
    if (v->producer == nullptr || !analysis::is_view_op(v->producer->kind) || v->producer->inputs.empty())
      return std::nullopt;
    v = v->producer->inputs[0];
  }
  return std::nullopt;
}

namespace {

// A name for a new stub on an operand: the variable the user's source reads it from (`mask`
// in `mask[:, None]`), else the value's name in the graph (FX names its values after
// operators, `getitem_1`, so the source comes first).
std::string operand_name_hint(const ir::Model& model, const ir::Node& consumer, size_t operand) {
  static const std::regex leading_name(R"(^\(*([A-Za-z_]\w*))");
  if (auto loc = operand_location(model, consumer, operand)) {
    std::string text = source_text(model, *loc);
    std::smatch m;
    if (std::regex_search(text, m, leading_name) && m[1] != "self" && m[1] != "torch") return m[1];
  }
  std::string name = display_name(consumer.inputs.at(operand));
  return name.empty() ? "operand" : name;
}

}  // namespace

std::optional<Edit> quantize_operand_edit(const analysis::Facts& facts, const ir::Node& consumer, int operand,
                                          bool cast_to_float) {
  std::string stub = facts.plain_stub_template();
  const ir::Function* fn = facts.function_of(consumer);
  if (stub.empty() || fn == nullptr || fn->method.empty() || fn->method.find('.') != std::string::npos)
    return std::nullopt;
  Edit e;
  e.kind = Edit::Kind::QuantizeOperand;
  e.node = &consumer;
  e.operand = operand;
  e.cast_to_float = cast_to_float;
  e.template_stub = stub;
  e.name_hint = operand_name_hint(facts.model(), consumer, static_cast<size_t>(operand));
  return e;
}

Fix safe_fix(std::string description, std::vector<Edit> edits) {
  Fix f;
  f.applicability = Applicability::Safe;
  f.description = std::move(description);
  f.edits = std::move(edits);
  return f;
}

Diagnostic make_diagnostic(const Rule& rule, const ir::Function& fn, const ir::Node& node,
                           std::string message) {
  Diagnostic d;
  d.rule = rule.id;
  d.severity = rule.severity;
  d.message = std::move(message);
  d.function = &fn;
  d.node = &node;
  d.loc = best_location(node);
  return d;
}

}  // namespace qlint::rules
