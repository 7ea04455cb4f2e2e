#include "ir/source_text.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <regex>
#include <set>
#include <utility>
#include <vector>

#include "ir/ops.h"

namespace qlint::ir {

namespace {

std::string own_name(const Value* v) {
  std::string name = v->name;
  auto dot = name.rfind('.');
  if (dot != std::string::npos && dot + 1 < name.size() && std::isdigit(static_cast<unsigned char>(name[dot + 1])))
    name = name.substr(0, dot);
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])) || v->generated_name) return "";
  // The tracer names a module's arguments `argument_1`, `argument_2`, ...: no name of the user's.
  if (name.rfind("argument_", 0) == 0 && name.size() > 9 &&
      name.find_first_not_of("0123456789", 9) == std::string::npos)
    return "";
  return name;
}

// The value whose name stands for `v`: itself, or the value it is a view of (`keep` for
// `keep[:, None]`); null when none has a name.
const Value* named_value(const Value* v) {
  for (int depth = 0; v != nullptr && depth < 16; ++depth) {
    if (!own_name(v).empty()) return v;
    if (v->producer == nullptr || !is_view_op(*v->producer) || v->producer->inputs.empty()) return nullptr;
    v = v->producer->inputs[0];
  }
  return nullptr;
}

}  // namespace

std::string display_name(const Value* v) {
  const Value* named = named_value(v);
  return named ? own_name(named) : "";
}

std::string source_text(const Model& model, const SourceLoc& loc) {
  if (!loc.known() || loc.end_line != loc.line) return "";
  const std::string* line = model.source_line(loc.file, loc.line);
  size_t start = static_cast<size_t>(loc.column - 1);
  size_t end = static_cast<size_t>(loc.end_column - 1);
  if (line == nullptr || end > line->size() || start >= end) return "";
  return line->substr(start, end - start);
}

namespace {

bool strictly_inside(const SourceLoc& inner, const SourceLoc& outer) {
  return inner.known() && inner.file == outer.file && inner.line == outer.line && inner.end_line == outer.line &&
         inner.column >= outer.column && inner.end_column <= outer.end_column && !(inner == outer);
}

// Python's binary operators (with the spaces PEP 8 puts around them) by how tightly they bind;
// ` = ` and `, ` bind loosest of all, an operand never spans them. 0: not an operator.
int binding(const std::string& text, size_t at, size_t* length) {
  static const std::vector<std::pair<std::string, int>> operators = {
      {" = ", 1},  {" *= ", 1}, {" += ", 1}, {" -= ", 1}, {" /= ", 1}, {", ", 1},  {" or ", 2}, {" and ", 3},
      {" == ", 4}, {" != ", 4}, {" <= ", 4}, {" >= ", 4}, {" < ", 4},  {" > ", 4}, {" | ", 5},  {" ^ ", 6},
      {" & ", 7},  {" + ", 8},  {" - ", 8},  {" // ", 9}, {" * ", 9},  {" / ", 9}, {" % ", 9},  {" @ ", 9}};
  for (const auto& [spelling, strength] : operators)
    if (text.compare(at, spelling.size(), spelling) == 0) {
      *length = spelling.size();
      return strength;
    }
  return 0;
}

// Where "a * b" splits at its one top-level occurrence of " op " (outside brackets). A trace
// ranges a whole statement (`x = d * w + c`): each operand stops at an operator that binds
// more loosely than `op` (`d`, `w`), as Python parses it. Nullopt without exactly one `op`.
struct BinarySplit {
  size_t left_begin, left_end, right_begin, right_end;
};

std::optional<BinarySplit> split_binary(const std::string& text, const std::string& op) {
  const std::string sep = " " + op + " ";
  size_t op_length = 0;
  const int strength = binding(sep, 0, &op_length);
  std::vector<std::pair<size_t, size_t>> tops;  // top-level operators: where, how long
  std::vector<int> strengths;
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    size_t length = 0;
    if (int s = depth == 0 ? binding(text, i, &length) : 0; s > 0) {
      tops.push_back({i, length});
      strengths.push_back(text.compare(i, sep.size(), sep) == 0 ? -1 : s);  // -1: `op` itself
      i += length - 2;  // the closing space may open the next operator
    }
  }
  if (std::count(strengths.begin(), strengths.end(), -1) != 1 || strength == 0) return std::nullopt;
  const size_t hit = static_cast<size_t>(std::find(strengths.begin(), strengths.end(), -1) - strengths.begin());
  BinarySplit split{0, tops[hit].first, tops[hit].first + tops[hit].second, text.size()};
  for (size_t k = hit; k-- > 0;)
    if (strengths[k] < strength) {
      split.left_begin = tops[k].first + tops[k].second;
      break;
    }
  for (size_t k = hit + 1; k < tops.size(); ++k)
    if (strengths[k] <= strength) {
      split.right_end = tops[k].first;
      break;
    }
  return split;
}

// An expression that can stand for an operand: not a whole statement, which is what a traced
// graph's ranges cover (`return tensor if pos is None else tensor + pos` split at ` + ` leaves
// a statement, not `tensor`).
// Up to 120 characters: real operands are long (`(points[:, :3] - self.range_min[None]) /
// self.voxel_size`); a longer range is more likely a whole statement than an operand.
bool plausible_operand(const std::string& text) {
  if (text.empty() || text.size() > 120 || text.find(" = ") != std::string::npos) return false;
  for (const char* statement : {"return ", "yield ", "assert ", "raise ", "del ", "lambda "})
    if (text.rfind(statement, 0) == 0) return false;
  return text.find(" if ") == std::string::npos && text.find(" else ") == std::string::npos;
}

// TorchScript ranges a method call by its callee (`t.sum(dim=1).clamp` for
// `t.sum(dim=1).clamp(min=1.0)`): an operand's range that stops right before a `(` takes in the
// call's arguments, so that an edit wrapping the operand wraps the whole call.
SourceLoc over_call_arguments(const Model& model, SourceLoc loc) {
  const std::string* line = model.source_line(loc.file, loc.line);
  const auto open = static_cast<size_t>(loc.end_column - 1);
  if (line == nullptr || loc.end_line != loc.line || open >= line->size() || (*line)[open] != '(') return loc;
  int depth = 0;
  for (size_t i = open; i < line->size(); ++i) {
    char c = (*line)[i];
    if (c == '"' || c == '\'') return loc;
    if (c == '(' || c == '[' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '}') && --depth == 0) {
      loc.end_column = static_cast<int>(i) + 2;
      return loc;
    }
  }
  return loc;
}

}  // namespace

std::string written_operator(const Model& model, const Node& node) {
  const std::string plain = operator_spelling(node.kind);
  const bool in_place = node.kind.size() > 1 && node.kind.back() == '_';
  if (!in_place || plain == base_op(node.kind)) return plain;
  // `q *= keep` (aten::mul_) as written, not `q.mul_(keep)`, whose text holds no operator.
  const std::string compound = plain + "=";
  return split_binary(source_text(model, node.loc), compound) ? compound : plain;
}

std::optional<SourceLoc> operand_location(const Model& model, const Node& consumer, size_t index) {
  const Value* v = consumer.inputs.at(index);
  // TorchScript ranges `int(x[i])` by its callee, `int`: the call's arguments are inside it too.
  if (v->producer && strictly_inside(v->producer->loc, over_call_arguments(model, consumer.loc)) &&
      plausible_operand(source_text(model, v->producer->loc)))
    return over_call_arguments(model, v->producer->loc);
  // C++'s `a[i][j]` on an accessor reads the element its last select picks: one expression for
  // both nodes, so that expression is the operand's text.
  if (consumer.kind == "aten::item" && v->producer && v->producer->loc == consumer.loc &&
      plausible_operand(source_text(model, consumer.loc)))
    return consumer.loc;
  std::string text = source_text(model, consumer.loc);
  auto split = split_binary(text, written_operator(model, consumer));
  if (!split || index > 1) return std::nullopt;
  SourceLoc loc = consumer.loc;
  const size_t begin = index == 0 ? split->left_begin : split->right_begin;
  const size_t end = index == 0 ? split->left_end : split->right_end;
  loc.column = consumer.loc.column + static_cast<int>(begin);
  loc.end_column = consumer.loc.column + static_cast<int>(end);
  loc = over_call_arguments(model, loc);
  // A trace ranges an element of a bracket spread over lines by its line, comma included
  // (`a - b,` in `torch.stack([\n a - b,\n ...])`): the operand stops before it.
  for (std::string text = source_text(model, loc); !text.empty() && (text.back() == ',' || text.back() == ' ');
       text.pop_back())
    --loc.end_column;
  if (!plausible_operand(source_text(model, loc))) return std::nullopt;
  return loc;
}

// The variable a statement `name = <value's expression>` assigns the value to, as the user wrote
// it: TorchScript renames a variable assigned twice (`mask`, then `mask0` in the archive's code).
// A trace ranges every op by its whole statement (`indices = a + b * c`): there the statement's
// name is the value's only when no op of the same statement reads the value (it is the last).
std::string assigned_name(const Model& model, const Value* v) {
  // `name =` or `name: Type =`; not `else: x =` (a keyword, then a statement of its own).
  static const std::regex assignment(R"(^\s*([A-Za-z_]\w*)\s*(:\s*[\w\[\]., ]+)?=\s*$)");
  static const std::regex statement(R"(^\s*([A-Za-z_]\w*)\s*(:\s*[\w\[\]., ]+)?=[^=].*$)");
  static const std::set<std::string> keywords = {"else",  "try", "finally", "lambda", "return", "if", "elif",
                                                 "while", "for", "with",    "except", "class",  "def"};
  const Node* p = v->producer;
  // C++ declares with a type (`torch::Tensor x = ...`), and its front end keeps the names.
  if (model.language != Language::Python || p == nullptr || !p->loc.known() || p->outputs.size() != 1) return "";
  const std::string* line = model.source_line(p->loc.file, p->loc.line);
  const auto column = static_cast<size_t>(p->loc.column - 1);
  std::smatch m;
  if (line == nullptr || column > line->size() || line->size() > 4096) return "";
  const std::string before = line->substr(0, column);
  if (std::regex_match(before, m, assignment)) return keywords.count(m[1]) ? "" : std::string(m[1]);
  const std::string text = source_text(model, p->loc);
  if (text.size() > 4096) return "";
  const bool read_in_its_statement = std::any_of(v->users.begin(), v->users.end(), [&](const Node* user) {
    return user->loc.file == p->loc.file && user->loc.line == p->loc.line;
  });
  if (!read_in_its_statement && std::regex_match(text, m, statement) && !keywords.count(m[1])) return m[1];
  return "";
}

namespace {

bool holds_identifier(const std::string& line, const std::string& name) {
  for (size_t at = line.find(name); at != std::string::npos; at = line.find(name, at + 1)) {
    auto word = [&](size_t i) { return std::isalnum(static_cast<unsigned char>(line[i])) || line[i] == '_'; };
    if ((at == 0 || !word(at - 1)) && (at + name.size() >= line.size() || !word(at + name.size()))) return true;
  }
  return false;
}

// TorchScript renames a variable assigned again (`maxvals, idx = ...` a second time gives
// `maxvals0`): where the line that made the value holds the name without the number, and not
// with it, that is the name the user wrote.
std::string without_renaming_number(const Model& model, const Value& v, std::string name) {
  const std::string plain = without_trailing_digits(name);
  if (plain.empty() || plain == name || v.producer == nullptr || !v.producer->loc.known()) return name;
  const std::string* line = model.source_line(v.producer->loc.file, v.producer->loc.line);
  if (line == nullptr || line->size() > 4096 || holds_identifier(*line, name) || !holds_identifier(*line, plain))
    return name;
  return plain;
}

}  // namespace

std::string written_name(const Model& model, const Value* v) {
  // The name of the value or of what it views, as the user's statement assigned it (a trace's
  // copies of a loop body name theirs `keep`, `keep0`, `keep1`).
  const Value* named = named_value(v);
  if (named == nullptr) return "";
  if (const std::string assigned = assigned_name(model, named); !assigned.empty()) return assigned;
  return without_renaming_number(model, *named, own_name(named));
}

std::string operand_text(const Model& model, const Node& consumer, size_t index) {
  if (auto loc = operand_location(model, consumer, index)) return "`" + source_text(model, *loc) + "`";
  const std::string name = written_name(model, consumer.inputs.at(index));
  return name.empty() ? "" : "`" + name + "`";
}

namespace {

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// How many brackets the text opens and leaves open (negative: closes more than it opens).
int open_brackets(const std::string& text) {
  int depth = 0;
  char quote = 0;
  for (char c : text) {
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    }
  }
  return depth;
}

}  // namespace

SourceLoc complete_range(const std::string& line, SourceLoc loc) {
  if (!loc.known() || loc.end_line != loc.line || loc.column < 1 || loc.end_column <= loc.column) return loc;
  auto end = static_cast<size_t>(loc.end_column - 1);
  auto start = static_cast<size_t>(loc.column - 1);
  if (end > line.size() || start >= end) return loc;
  // `1.0 - q).to` for `(1.0 - q).to`: take in the brackets the range closes but starts after.
  for (int depth = open_brackets(line.substr(start, end - start)); depth < 0 && start > 0; --start) {
    const char c = line[start - 1];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
  }
  while (end < line.size() && identifier_char(line[end]) && identifier_char(line[end - 1])) ++end;
  for (int depth = open_brackets(line.substr(start, end - start)); depth > 0 && end < line.size(); ++end) {
    const char c = line[end];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
  }
  loc.column = static_cast<int>(start) + 1;
  loc.end_column = static_cast<int>(end) + 1;
  return loc;
}

namespace {

const std::string* string_attr(const Node& node, const char* name) {
  const Attr* a = node.attr(name);
  return a != nullptr && a->kind == Attr::Kind::Str ? &a->s : nullptr;
}

}  // namespace

std::optional<std::string> python_self_module(const Model& model, const Node& node) {
  if (const std::string* recorded = string_attr(node, "module")) return *recorded;
  if (string_attr(node, "scope") != nullptr) return std::nullopt;  // recorded: no module there
  const Function* fn = model.function_of(node);
  if (fn == nullptr) return std::nullopt;
  return fn->module_path;
}

bool same_python_function(const Node& a, const Node& b) {
  const std::string* scope_a = string_attr(a, "scope");
  const std::string* scope_b = string_attr(b, "scope");
  if (scope_a == nullptr || scope_b == nullptr) return true;
  const std::string* module_a = string_attr(a, "module");
  const std::string* module_b = string_attr(b, "module");
  bool same_module = module_a && module_b ? *module_a == *module_b : module_a == module_b;
  return *scope_a == *scope_b && same_module;
}

namespace {

bool ends_a_name(const std::string& text, size_t end) {
  return end >= text.size() || !(std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_');
}

bool is_identifier(const std::string& text) {
  return !text.empty() && !std::isdigit(static_cast<unsigned char>(text[0])) &&
         std::all_of(text.begin(), text.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

}  // namespace

// Where the user's source reads the variable that is the consumer's operand: the operand's own
// range, or, for a consumer TorchScript inlined from its builtins (`1.0 - is_pad` is `neg` and
// `add` on "<string>" lines), the one place its name occurs in the first user statement the
// result flows into.
std::optional<SourceLoc> variable_read_by(const Model& model, const Node& consumer, size_t operand) {
  const std::string name = display_name(consumer.inputs.at(operand));
  if (!is_identifier(name)) return std::nullopt;
  if (auto at = operand_location(model, consumer, operand); at && source_text(model, *at) == name) return at;
  const Node* statement = &consumer;
  for (int depth = 0; statement && (!statement->loc.known() || statement->loc.file == "<string>") && depth < 8; ++depth)
    statement = statement->output() && statement->output()->users.size() == 1 ? statement->output()->users[0] : nullptr;
  // The statement's whole line: TorchScript ranges a call by its callee (`torch.cat`).
  const std::string* line =
      statement == nullptr ? nullptr : model.source_line(statement->loc.file, statement->loc.line);
  if (line == nullptr) return std::nullopt;
  const std::string& text = *line;
  std::optional<size_t> found;
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    bool starts = at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_' ||
                               text[at - 1] == '.');
    if (!starts || !ends_a_name(text, at + name.size())) continue;
    if (found) return std::nullopt;  // read twice on the line: which one is ours?
    found = at;
  }
  if (!found) return std::nullopt;
  SourceLoc loc = statement->loc;
  loc.line = loc.end_line = statement->loc.line;
  loc.column = static_cast<int>(*found) + 1;
  loc.end_column = loc.column + static_cast<int>(name.size());
  return loc;
}

}  // namespace qlint::ir
