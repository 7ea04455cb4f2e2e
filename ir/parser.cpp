#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <unordered_map>

#include "ir/text.h"

namespace qlint::ir {

namespace {

enum class Tok { End, Ident, Str, Number, ValueRef, ModuleType, Punct };

struct Token {
  Tok kind = Tok::End;
  std::string text;
  int line = 0;
};

class Lexer {
 public:
  explicit Lexer(const std::string& text) : text_(text) {}

  std::vector<Token> run() {
    std::vector<Token> tokens;
    while (true) {
      skip_space_and_comments();
      if (pos_ >= text_.size()) break;
      tokens.push_back(next());
    }
    tokens.push_back(Token{Tok::End, "end of input", line_});
    return tokens;
  }

 private:
  void skip_space_and_comments() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '\n') {
        ++line_;
        ++pos_;
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        ++pos_;
      } else if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else {
        return;
      }
    }
  }

  static bool ident_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':' || c == '.';
  }

  Token next() {
    char c = text_[pos_];
    if (c == '"') return string_token();
    if (c == '%') return value_token();
    if (std::isdigit(static_cast<unsigned char>(c))) return number_token();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return ident_token();
    if (c == '-' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '>') {
      pos_ += 2;
      return {Tok::Punct, "->", line_};
    }
    if (std::string("()[]{},:=<>-").find(c) == std::string::npos)
      throw ParseError(line_, std::string("unexpected character '") + c + "'");
    ++pos_;
    return {Tok::Punct, std::string(1, c), line_};
  }

  Token string_token() {
    std::string s;
    ++pos_;
    while (true) {
      if (pos_ >= text_.size() || text_[pos_] == '\n') throw ParseError(line_, "unterminated string");
      char c = text_[pos_++];
      if (c == '"') break;
      if (c != '\\') {
        s += c;
        continue;
      }
      if (pos_ >= text_.size()) throw ParseError(line_, "unterminated string");
      char e = text_[pos_++];
      s += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
    }
    return {Tok::Str, s, line_};
  }

  Token value_token() {
    size_t start = ++pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' || text_[pos_] == '.'))
      ++pos_;
    if (pos_ == start) throw ParseError(line_, "expected a value name after '%'");
    return {Tok::ValueRef, text_.substr(start, pos_ - start), line_};
  }

  Token number_token() {
    size_t start = pos_;
    while (pos_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.')) ++pos_;
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    }
    return {Tok::Number, text_.substr(start, pos_ - start), line_};
  }

  Token ident_token() {
    size_t start = pos_;
    while (pos_ < text_.size() && ident_char(text_[pos_])) ++pos_;
    std::string word = text_.substr(start, pos_ - start);
    if (word == "qlint" && text_.compare(pos_, 3, "-ir") == 0) {
      pos_ += 3;
      return {Tok::Ident, "qlint-ir", line_};
    }
    if (word == "Module" && pos_ < text_.size() && text_[pos_] == '<') {
      size_t close = text_.find('>', pos_);
      if (close == std::string::npos) throw ParseError(line_, "unterminated Module<...> type");
      std::string path = text_.substr(pos_ + 1, close - pos_ - 1);
      pos_ = close + 1;
      return {Tok::ModuleType, path, line_};
    }
    return {Tok::Ident, word, line_};
  }

  const std::string& text_;
  size_t pos_ = 0;
  int line_ = 1;
};

class Parser {
 public:
  explicit Parser(const std::string& text) : tokens_(Lexer(text).run()) {}

  ParsedModel run() {
    expect_word("qlint-ir");
    if (number() != "1") fail("unsupported qlint-ir version");
    while (peek().kind == Tok::Ident && peek().text != "func") header();
    while (peek().kind != Tok::End) function();
    return std::move(result_);
  }

 private:
  const Token& peek() const { return tokens_[pos_]; }
  const Token& take() { return tokens_[pos_ == tokens_.size() - 1 ? pos_ : pos_++]; }
  [[noreturn]] void fail(const std::string& message) const {
    throw ParseError(peek().line, message + " (at '" + peek().text + "')");
  }
  bool at_punct(const char* p) const { return peek().kind == Tok::Punct && peek().text == p; }
  bool at_word(const char* w) const { return peek().kind == Tok::Ident && peek().text == w; }
  void expect_punct(const char* p) {
    if (!at_punct(p)) fail(std::string("expected '") + p + "'");
    take();
  }
  void expect_word(const char* w) {
    if (!at_word(w)) fail(std::string("expected '") + w + "'");
    take();
  }
  std::string string() {
    if (peek().kind != Tok::Str) fail("expected a string");
    return take().text;
  }
  std::string number() {
    if (peek().kind != Tok::Number) fail("expected a number");
    return take().text;
  }
  int integer() {
    std::string n = number();
    if (n.find_first_of(".eE") != std::string::npos) fail("expected an integer");
    int v = 0;
    auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), v);
    if (ec != std::errc() || end != n.data() + n.size()) fail("integer out of range");
    return v;
  }

  // A number as int64, without a float-to-int overflow.
  int64_t to_int64(double value) {
    if (!(value >= -9223372036854775808.0 && value < 9223372036854775808.0)) fail("integer out of range");
    return static_cast<int64_t>(value);
  }

  // Blocks and types nest; the parser recurses on them, so nesting is bounded.
  struct Nesting {
    int& depth;
    explicit Nesting(Parser& p) : depth(p.depth_) {
      if (++depth > kMaxNesting) p.fail("nested too deeply");
    }
    ~Nesting() { --depth; }
  };

  void header() {
    Model& m = result_.model;
    if (at_word("model")) {
      take();
      m.file = string();
    } else if (at_word("module")) {
      take();
      ModuleInfo info;
      info.path = string();
      info.class_name = string();
      if (at_word("display")) {  // how messages name a C++ quant point, and its line
        take();
        info.display = string();
        expect_word("line");
        info.line = integer();
      }
      m.modules.push_back(std::move(info));
    } else if (at_word("language")) {
      take();
      std::string language = string();
      if (language != "cxx" && language != "python") fail("unknown language '" + language + "'");
      m.language = language == "cxx" ? Language::Cxx : Language::Python;
    } else if (at_word("source")) {
      take();
      std::string file = string();
      int line = integer();
      m.source_lines[file][line] = string();
    } else {
      fail("expected 'model', 'language', 'module', 'source' or 'func'");
    }
  }

  void function() {
    expect_word("func");
    std::string method = string();
    expect_word("in");
    std::string module_path = string();
    Function& f = result_.model.add_function(module_path, method);
    if (result_.model.find_function(f.name) != &f) fail("function '" + f.name + "' defined twice");
    if (at_word("entry")) {  // a C++ function: its parameters are the program's inputs
      take();
      f.entry = true;
    }
    fn_ = &f;
    values_.clear();
    params(f.body);
    expect_punct("{");
    nodes(f.body);
    expect_word("return");
    f.body.returns = value_list();
    expect_punct("}");
  }

  void params(Block& block) {
    expect_punct("(");
    while (!at_punct(")")) {
      if (!block.params.empty()) expect_punct(",");
      auto [name, type] = typed_name();
      define(name, fn_->add_param(block, name, type));
    }
    take();
  }

  std::pair<std::string, Type> typed_name() {
    if (peek().kind != Tok::ValueRef) fail("expected a value such as %x");
    std::string name = take().text;
    expect_punct(":");
    return {name, type()};
  }

  void define(const std::string& name, Value* v) {
    if (!values_.emplace(name, v).second) fail("value %" + name + " defined twice");
  }

  Value* use(const std::string& name) {
    auto it = values_.find(name);
    if (it == values_.end()) fail("undefined value %" + name);
    return it->second;
  }

  std::vector<Value*> value_list() {
    expect_punct("(");
    std::vector<Value*> out;
    while (!at_punct(")")) {
      if (!out.empty()) expect_punct(",");
      if (peek().kind != Tok::ValueRef) fail("expected a value such as %x");
      out.push_back(use(take().text));
    }
    take();
    return out;
  }

  void nodes(Block& block) {
    while (!at_word("return") && !at_punct("->") && peek().kind != Tok::End) node(block);
  }

  void node(Block& block) {
    int line = peek().line;
    std::vector<std::pair<std::string, Type>> outputs;
    if (peek().kind == Tok::ValueRef) {
      outputs.push_back(typed_name());
      while (at_punct(",")) {
        take();
        outputs.push_back(typed_name());
      }
      expect_punct("=");
    }
    if (peek().kind != Tok::Ident) fail("expected an operator such as aten::mul");
    Node* n = fn_->append_node(block, take().text);
    result_.node_lines[n] = line;
    if (at_punct("[")) attributes(*n);
    for (Value* v : value_list()) fn_->add_input(*n, v);
    if (at_word("loc")) n->loc = loc();
    if (at_punct("{")) node_blocks(*n);
    for (auto& [name, type] : outputs) define(name, fn_->add_output(*n, name, type));
  }

  void node_blocks(Node& n) {
    Nesting nesting(*this);
    take();
    while (at_word("block")) {
      take();
      n.blocks.push_back(std::make_unique<Block>());
      Block& b = *n.blocks.back();
      b.owner = &n;
      params(b);
      expect_punct("{");
      nodes(b);
      expect_punct("->");
      b.returns = value_list();
      expect_punct("}");
    }
    expect_punct("}");
  }

  SourceLoc loc() {
    expect_word("loc");
    expect_punct("(");
    SourceLoc l;
    l.file = string();
    expect_punct(":");
    l.line = integer();
    expect_punct(":");
    l.column = integer();
    expect_punct("-");
    l.end_line = integer();
    expect_punct(":");
    l.end_column = integer();
    expect_punct(")");
    return l;
  }

  void attributes(Node& n) {
    take();
    while (!at_punct("]")) {
      if (!n.attrs.empty()) expect_punct(",");
      if (peek().kind != Tok::Ident) fail("expected an attribute name");
      std::string name = take().text;
      expect_punct("=");
      n.set_attr(name, attr());
    }
    take();
  }

  Attr attr() {
    if (peek().kind == Tok::Str) return Attr::of_str(take().text);
    if (at_word("true") || at_word("false")) return Attr::of_bool(take().text == "true");
    if (at_word("None")) {
      take();
      return Attr::none();
    }
    if (at_word("ints")) {
      take();
      Attr a;
      a.kind = Attr::Kind::Ints;
      a.ints = int_list();
      return a;
    }
    if (at_word("floats")) {
      take();
      Attr a;
      a.kind = Attr::Kind::Floats;
      a.floats = float_list();
      return a;
    }
    if (at_word("tensor")) return tensor_attr();
    Number number = signed_number();
    if (number.is_float) return Attr::of_float(number.value);
    return Attr::of_int(integer_of(number));
  }

  Attr tensor_attr() {
    take();
    Attr a;
    a.kind = Attr::Kind::Tensor;
    expect_punct("<");
    if (peek().kind != Tok::Ident) fail("expected a dtype");
    auto dtype = dtype_from_name(take().text);
    if (!dtype) fail("unknown dtype");
    a.dtype = *dtype;
    expect_punct(",");
    a.ints = int_list();
    expect_punct(">");
    a.floats = float_list();
    return a;
  }

  // An integer is read exactly (sys.maxsize, a slice's end, does not go through a double).
  struct Number {
    bool is_float = false;
    double value = 0;
    int64_t integer = 0;  // when not is_float, and `exact`: it fits into int64
    bool exact = false;
  };

  // Accepts a leading '-', inf and nan.
  Number signed_number() {
    bool negative = false;
    if (at_punct("-")) {
      take();
      negative = true;
    }
    const double sign = negative ? -1 : 1;
    if (at_word("inf")) {
      take();
      return {true, sign * INFINITY, 0, false};
    }
    if (at_word("nan")) {
      take();
      return {true, NAN, 0, false};
    }
    std::string n = number();
    if (n.find_first_of(".eE") != std::string::npos) return {true, sign * std::strtod(n.c_str(), nullptr), 0, false};
    const std::string text = (negative ? "-" : "") + n;
    Number out{false, std::strtod(text.c_str(), nullptr), 0};
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out.integer);
    out.exact = ec == std::errc() && end == text.data() + text.size();
    return out;
  }

  int64_t integer_of(const Number& number) {
    if (number.is_float) return to_int64(number.value);
    if (!number.exact) fail("integer out of range");
    return number.integer;
  }

  std::vector<int64_t> int_list() {
    std::vector<int64_t> out;
    expect_punct("[");
    while (!at_punct("]")) {
      if (!out.empty()) expect_punct(",");
      out.push_back(integer_of(signed_number()));
    }
    take();
    return out;
  }

  std::vector<double> float_list() {
    std::vector<double> out;
    expect_punct("[");
    while (!at_punct("]")) {
      if (!out.empty()) expect_punct(",");
      out.push_back(signed_number().value);
    }
    take();
    return out;
  }

  Type type() {
    Nesting nesting(*this);
    if (peek().kind == Tok::ModuleType) return Type::module(take().text);
    if (peek().kind != Tok::Ident) fail("expected a type");
    std::string word = take().text;
    using K = Type::Kind;
    static const std::unordered_map<std::string, K> simple = {{"int", K::Int},       {"float", K::Float},
                                                              {"bool", K::Bool},     {"str", K::Str},
                                                              {"NoneType", K::None}, {"Device", K::Device}};
    if (auto it = simple.find(word); it != simple.end()) return Type::simple(it->second);
    if (word == "Tensor") return tensor_type();
    if (word == "List" || word == "Tuple" || word == "Optional") {
      Type t = Type::simple(word == "List" ? K::List : word == "Tuple" ? K::Tuple : K::Optional);
      expect_punct("[");
      while (!at_punct("]")) {
        if (!t.elements.empty()) expect_punct(",");
        t.elements.push_back(type());
      }
      take();
      return t;
    }
    if (word == "Other") {
      expect_punct("(");
      Type t = Type::other(string());
      expect_punct(")");
      return t;
    }
    fail("unknown type '" + word + "'");
  }

  Type tensor_type() {
    Type t = Type::tensor();
    if (!at_punct("(")) return t;
    take();
    if (peek().kind != Tok::Ident) fail("expected a dtype");
    auto dtype = dtype_from_name(take().text);
    if (!dtype) fail("unknown dtype");
    t.dtype = *dtype;
    if (at_punct(",")) {
      take();
      t.sizes = int_list();
    }
    expect_punct(")");
    return t;
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  ParsedModel result_;
  Function* fn_ = nullptr;
  int depth_ = 0;
  std::unordered_map<std::string, Value*> values_;
};

}  // namespace

ParsedModel parse_model(const std::string& text) { return Parser(text).run(); }

}  // namespace qlint::ir
