#include "rewriter/edits/cxx_operand.h"

#include <cctype>

namespace qlint::rewriter {

namespace {

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// The index one past the bracket that closes the one at `open`, or npos when it is unbalanced.
// String and character literals inside are skipped, so `f(")")` stays one call.
size_t past_closing(const std::string& text, size_t open) {
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"' || c == '\'') {
      for (++i; i < text.size() && text[i] != c; ++i)
        if (text[i] == '\\') ++i;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (depth == 0) return i + 1;
  }
  return std::string::npos;
}

// `<float>` of `x.item<float>()`: a template argument list only when a call follows it, as
// `a < b > (c)` is a rare enough comparison to parenthesise anyway (parentheses are safe).
size_t past_template_arguments(const std::string& text, size_t open) {
  size_t close = text.find('>', open);
  if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != '(') return std::string::npos;
  for (size_t i = open + 1; i < close; ++i)
    if (!name_char(text[i]) && text[i] != ':' && text[i] != ' ' && text[i] != ',') return std::string::npos;
  return close + 1;
}

}  // namespace

bool is_postfix_expression(const std::string& text) {
  if (text.empty()) return false;
  size_t i = 0;
  if (text[0] == '(') {  // a parenthesised expression: postfix only if the parentheses hold it all
    i = past_closing(text, 0);
    if (i == std::string::npos) return false;
  } else if (text[0] == ':' || std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_') {
    while (i < text.size() && (name_char(text[i]) || text[i] == ':')) ++i;
  } else {
    return false;  // a literal (`0.5.to` is no member access), a unary operator, a cast
  }
  while (i < text.size()) {
    const char c = text[i];
    if (c == '(' || c == '[' || c == '{') {
      i = past_closing(text, i);
    } else if (c == '<') {
      i = past_template_arguments(text, i);
    } else if (c == '.' || (c == '-' && i + 1 < text.size() && text[i + 1] == '>') ||
               (c == ':' && i + 1 < text.size() && text[i + 1] == ':')) {
      i += c == '.' ? 1 : 2;
      if (i >= text.size() || !name_char(text[i]) || std::isdigit(static_cast<unsigned char>(text[i]))) return false;
      while (i < text.size() && name_char(text[i])) ++i;
    } else {
      return false;  // an operator or a space at the top level
    }
    if (i == std::string::npos) return false;
  }
  return true;
}

std::string with_method_call(const std::string& text, const std::string& suffix) {
  return (is_postfix_expression(text) ? text : "(" + text + ")") + suffix;
}

}  // namespace qlint::rewriter
