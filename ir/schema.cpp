#include "ir/schema.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <regex>

namespace qlint::ir {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// Where `s` has `c` outside brackets and quotes, from `from` on; npos when nowhere.
size_t find_top_level(std::string_view s, char c, size_t from = 0) {
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    if (quote != 0) {
      if (ch == '\\')
        ++i;
      else if (ch == quote)
        quote = 0;
      continue;
    }
    if (ch == '"' || ch == '\'')
      quote = ch;
    else if (ch == '(' || ch == '[')
      ++depth;
    else if (ch == ')' || ch == ']')
      --depth;
    else if (ch == c && depth == 0 && i >= from)
      return i;
  }
  return std::string_view::npos;
}

std::size_t rfind_top_level_space(std::string_view s) {
  size_t last = std::string_view::npos;
  for (size_t at = find_top_level(s, ' '); at != std::string_view::npos; at = find_top_level(s, ' ', at + 1)) last = at;
  return last;
}

std::vector<std::string_view> split_top_level(std::string_view s) {
  std::vector<std::string_view> parts;
  if (trim(s).empty()) return parts;
  size_t start = 0;
  for (size_t comma = find_top_level(s, ','); comma != std::string_view::npos;
       comma = find_top_level(s, ',', comma + 1)) {
    parts.push_back(trim(s.substr(start, comma - start)));
    start = comma + 1;
  }
  parts.push_back(trim(s.substr(start)));
  return parts;
}

// The index of the bracket closing the one at `open`; npos when unbalanced.
size_t matching_close(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '(' || s[i] == '[') ++depth;
    if ((s[i] == ')' || s[i] == ']') && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// Strips the alias annotation from a type ("Tensor(a!)" -> "Tensor", sets a and writes). A
// parenthesised group is an annotation when it reads like one: "a", "a!", "a -> *", "*", "b|c";
// type constructors ("Dict(str, t)", "Future(t)") keep theirs.
void read_alias_annotation(std::string type, SchemaArgument& arg) {
  static const std::regex annotation(R"(^\s*([a-z*][a-z0-9|*]*)(!?)\s*(->\s*[a-z*|]+!?)?\s*$)");
  static const std::regex type_constructor(R"((Dict|Future|RRef|Union|Await)$)");
  for (size_t open = type.find('('); open != std::string::npos; open = type.find('(', open + 1)) {
    const size_t close = matching_close(type, open);
    if (close == std::string::npos) break;
    const std::string before = type.substr(0, open);
    const bool constructor = std::regex_search(before, type_constructor);
    std::smatch m;
    const std::string content = type.substr(open + 1, close - open - 1);
    if (constructor || !std::regex_match(content, m, annotation)) continue;
    arg.alias_set = m[1];
    arg.writes = m[2].length() > 0;
    arg.into_wildcard = m[3].matched || arg.alias_set == "*";
    type.erase(open, close - open + 1);
    break;
  }
  arg.type = type;
}

std::optional<SchemaArgument> parse_argument(std::string_view text, bool keyword_only) {
  SchemaArgument arg;
  arg.keyword_only = keyword_only;
  std::string_view decl = text;
  if (size_t eq = find_top_level(text, '='); eq != std::string_view::npos) {
    arg.default_value = std::string(trim(text.substr(eq + 1)));
    decl = trim(text.substr(0, eq));
  }
  std::string_view type = decl;
  if (size_t space = rfind_top_level_space(decl); space != std::string_view::npos) {
    arg.name = std::string(trim(decl.substr(space + 1)));
    type = trim(decl.substr(0, space));
  }
  if (type.empty()) return std::nullopt;
  read_alias_annotation(std::string(type), arg);
  return arg;
}

bool parse_returns(std::string_view text, Schema& schema) {
  text = trim(text);
  if (text.empty()) return false;
  const bool tuple = text.front() == '(' && matching_close(text, 0) == text.size() - 1;
  for (std::string_view part : tuple ? split_top_level(text.substr(1, text.size() - 2)) : split_top_level(text)) {
    if (part == "...") continue;
    auto ret = parse_argument(part, false);
    if (!ret) return false;
    schema.returns.push_back(std::move(*ret));
  }
  return true;
}

}  // namespace

std::optional<size_t> Schema::argument_index(std::string_view name) const {
  for (size_t i = 0; i < arguments.size(); ++i)
    if (arguments[i].name == name) return i;
  return std::nullopt;
}

std::optional<Schema> parse_schema(std::string_view text) {
  const size_t open = text.find('(');
  const size_t close = open == std::string_view::npos ? open : matching_close(text, open);
  const size_t arrow = close == std::string_view::npos ? close : text.find("->", close);
  if (arrow == std::string_view::npos || trim(text.substr(close + 1, arrow - close - 1)) != "") return std::nullopt;
  Schema schema;
  std::string_view qualified = trim(text.substr(0, open));
  const size_t ns = qualified.find("::");
  const size_t dot = qualified.find('.', ns == std::string_view::npos ? 0 : ns + 2);
  if (ns == std::string_view::npos || qualified.empty()) return std::nullopt;
  schema.name = std::string(qualified.substr(0, dot));
  if (dot != std::string_view::npos) schema.overload = std::string(qualified.substr(dot + 1));
  bool keyword_only = false;
  for (std::string_view part : split_top_level(text.substr(open + 1, close - open - 1))) {
    if (part == "*") {
      keyword_only = true;
      continue;
    }
    if (part == "...") {
      schema.vararg = true;
      continue;
    }
    auto arg = parse_argument(part, keyword_only);
    if (!arg || arg->name.empty()) return std::nullopt;
    schema.arguments.push_back(std::move(*arg));
  }
  if (!parse_returns(text.substr(arrow + 2), schema)) return std::nullopt;
  return schema;
}

const Schema* schema_of(const Node& node) {
  const Attr* text = node.attr("schema");
  if (text == nullptr || text->kind != Attr::Kind::Str) return nullptr;
  // Models repeat a few hundred spellings many times over; each is parsed once. The LSP server
  // analyses on more than one thread.
  static std::mutex mutex;
  static std::map<std::string, std::optional<Schema>> parsed;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = parsed.find(text->s);
  if (it == parsed.end()) it = parsed.emplace(text->s, parse_schema(text->s)).first;
  return it->second ? &*it->second : nullptr;
}

const Value* named_operand(const Node& node, std::string_view name) {
  const Schema* schema = schema_of(node);
  if (schema == nullptr) return python_operand(node, name);
  auto index = schema->argument_index(name);
  return index && *index < node.inputs.size() ? node.inputs[*index] : nullptr;
}

// An FX call of a Python function names its operands in the attribute `parameters`
// ("input,size,mode"), which the FX front end read off the function's signature.
const Value* python_operand(const Node& node, std::string_view name) {
  const Attr* parameters = node.attr("parameters");
  if (parameters == nullptr || parameters->kind != Attr::Kind::Str) return nullptr;
  std::string_view names = parameters->s;
  for (size_t index = 0, start = 0; start <= names.size(); ++index) {
    size_t end = std::min(names.find(',', start), names.size());
    if (names.substr(start, end - start) == name) return index < node.inputs.size() ? node.inputs[index] : nullptr;
    start = end + 1;
  }
  return nullptr;
}

std::optional<bool> output_aliases_operand(const Node& node, size_t output, size_t operand) {
  const Schema* schema = schema_of(node);
  if (schema == nullptr) return std::nullopt;
  if (output >= schema->returns.size() || operand >= schema->arguments.size()) return false;
  // `Tensor(b|a)`: the result is one of several sets (`to.prim_dtype` returns self or a copy).
  const std::string& operand_set = schema->arguments[operand].alias_set;
  if (operand_set.empty() || operand_set == "*") return false;
  const std::string sets = "|" + schema->returns[output].alias_set + "|";
  return sets.find("|" + operand_set + "|") != std::string::npos;
}

std::optional<bool> writes_operand(const Node& node, size_t operand) {
  const Schema* schema = schema_of(node);
  if (schema == nullptr) return std::nullopt;
  if (operand >= schema->arguments.size()) return false;
  if (schema->arguments[operand].writes) return true;
  // `l.append(v)`, `d[k] = v`: v goes into a container the op writes (`t(c -> *) el`), where
  // a later write through the container reaches it.
  if (!schema->arguments[operand].into_wildcard) return false;
  for (const SchemaArgument& arg : schema->arguments)
    if (arg.writes) return true;
  return false;
}

}  // namespace qlint::ir
