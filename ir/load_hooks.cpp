#include "ir/load_hooks.h"

#include <cctype>
#include <utility>

namespace qlint::ir {

namespace {

constexpr const char* kHook = "__setstate__";
constexpr size_t kMaxHooks = 64;

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A Python-like token stream over the record: identifiers with their line and the indentation
// of the logical line they are on. Strings and comments are skipped (the raw-text scan in
// load_hooks sees them); a backslash before a line break joins the lines, as Python's does.
class Tokens {
 public:
  explicit Tokens(const std::string& text) : text_(text) {}

  struct Token {
    std::string ident;  // empty for punctuation and numbers
    int line = 0;
    int indent = 0;      // of the logical line
    bool first = false;  // the first token of its logical line
  };

  bool next(Token& out) {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '\\' && pos_ + 1 < text_.size() && (text_[pos_ + 1] == '\n' || text_[pos_ + 1] == '\r')) {
        pos_ += text_[pos_ + 1] == '\r' && pos_ + 2 < text_.size() && text_[pos_ + 2] == '\n' ? 3 : 2;
        ++line_;
        continue;
      }
      if (c == '\n') {
        ++line_;
        ++pos_;
        if (brackets_ == 0) line_start_ = true, indent_ = 0;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\f' || c == '\r' || c == '\v') {
        if (line_start_) indent_ += c == '\t' ? 8 - indent_ % 8 : 1;
        ++pos_;
        continue;
      }
      if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
        continue;
      }
      if (c == '"' || c == '\'') {
        skip_string();
        emit(out, "");
        return true;
      }
      if (ident_start(c)) {
        size_t begin = pos_;
        while (pos_ < text_.size() && ident_char(text_[pos_])) ++pos_;
        // A string prefix (r"...", b'...'): the string follows at once.
        if (pos_ < text_.size() && (text_[pos_] == '"' || text_[pos_] == '\'') && pos_ - begin <= 2) {
          skip_string();
          emit(out, "");
          return true;
        }
        emit(out, text_.substr(begin, pos_ - begin));
        return true;
      }
      if (c == '(' || c == '[' || c == '{') ++brackets_;
      if ((c == ')' || c == ']' || c == '}') && brackets_ > 0) --brackets_;
      ++pos_;
      emit(out, "");
      return true;
    }
    return false;
  }

 private:
  void emit(Token& out, std::string ident) {
    out.ident = std::move(ident);
    out.line = line_;
    out.indent = indent_;
    out.first = line_start_;
    line_start_ = false;
  }

  // From an opening quote to past its closing one (triple quotes too); an unterminated string
  // ends the text.
  void skip_string() {
    const char quote = text_[pos_];
    const bool triple = text_.compare(pos_, 3, std::string(3, quote)) == 0;
    pos_ += triple ? 3 : 1;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '\\') {
        if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') ++line_;
        pos_ += 2;
        continue;
      }
      if (c == '\n') {
        ++line_;
        if (!triple) {
          ++pos_;
          return;
        }
      }
      if (c == quote && (!triple || text_.compare(pos_, 3, std::string(3, quote)) == 0)) {
        pos_ += triple ? 3 : 1;
        return;
      }
      ++pos_;
    }
  }

  const std::string& text_;
  size_t pos_ = 0;
  int line_ = 1;
  int indent_ = 0;
  int brackets_ = 0;
  bool line_start_ = true;
};

// The classes open at each indentation, innermost last, for naming a definition's class.
struct ClassStack {
  std::vector<std::pair<int, std::string>> open;  // indent, name

  void line_at(int indent) {
    while (!open.empty() && open.back().first >= indent) open.pop_back();
  }
  std::string innermost() const { return open.empty() ? "" : open.back().second; }
};

std::vector<LoadHook> definitions(const std::string& code) {
  std::vector<LoadHook> out;
  Tokens tokens(code);
  ClassStack classes;
  Tokens::Token previous, token;
  bool have_previous = false;
  while (tokens.next(token)) {
    if (token.first) classes.line_at(token.indent);
    if (have_previous && previous.ident == "class" && !token.ident.empty())
      classes.open.emplace_back(previous.indent, token.ident);
    if (have_previous && previous.ident == "def" && token.ident == kHook)
      out.push_back({token.line, true, classes.innermost()});
    previous = token;
    have_previous = true;
  }
  return out;
}

int line_of(const std::string& text, size_t offset, size_t& counted_to, int& line) {
  for (; counted_to < offset; ++counted_to)
    if (text[counted_to] == '\n') ++line;
  return line;
}

}  // namespace

std::string LoadHook::describe() const {
  std::string where = "line " + std::to_string(line);
  if (!definition) return where + " names __setstate__";
  return where + " defines __setstate__" + (class_name.empty() ? "" : " (class " + class_name + ")");
}

std::vector<LoadHook> load_hooks(const std::string& code) {
  std::vector<LoadHook> hooks = definitions(code);
  // Every occurrence of the name on a line without a recognised definition counts too: an
  // unsure case is treated as one that runs code.
  size_t counted_to = 0;
  int line = 1;
  for (size_t at = code.find(kHook); at != std::string::npos; at = code.find(kHook, at + 1)) {
    int here = line_of(code, at, counted_to, line);
    bool known = false;
    for (const LoadHook& h : hooks) known = known || h.line == here;
    if (!known) hooks.push_back({here, false, ""});
    if (hooks.size() >= kMaxHooks) break;  // the answer is known; bound the work
  }
  return hooks;
}

bool is_code_record(const std::string& name) {
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto ends_with = [&](const std::string& suffix) {
    return lower.size() >= suffix.size() && lower.compare(lower.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with(".debug_pkl")) return false;
  return lower.rfind("code/", 0) == 0 || ends_with(".py");
}

}  // namespace qlint::ir
