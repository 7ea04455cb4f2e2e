#include "ir/ops.h"

#include <map>
#include <set>

namespace qlint::ir {

bool returns_values_and_indices(const std::string& kind) {
  static const std::set<std::string> ops = {
      "aten::max",  "aten::min",    "aten::sort",      "aten::topk",   "aten::kthvalue",
      "aten::mode", "aten::median", "aten::nanmedian", "aten::cummax", "aten::cummin",
  };
  return ops.count(kind) > 0;
}

bool is_view_op(const std::string& kind, bool* is_part) {
  // true: picks a part of the input; false: the whole input, reshaped or moved.
  static const std::map<std::string, bool> views = {
      {"aten::slice", true},         {"aten::select", true},      {"aten::index", true},
      {"aten::narrow", true},        {"aten::__getitem__", true}, {"aten::index_select", true},
      {"aten::masked_select", true}, {"aten::unsqueeze", false},  {"aten::squeeze", false},
      {"aten::view", false},         {"aten::reshape", false},    {"aten::permute", false},
      {"aten::transpose", false},    {"aten::flatten", false},    {"aten::contiguous", false},
      {"aten::expand", false},       {"aten::expand_as", false},  {"aten::view_as", false},
      {"aten::reshape_as", false},   {"aten::t", false},          {"aten::clone", false},
      {"aten::detach", false},
  };
  auto it = views.find(kind);
  if (it == views.end()) return false;
  if (is_part) *is_part = it->second;
  return true;
}

std::string base_op(const std::string& kind) {
  std::string op = kind.substr(kind.find("::") == std::string::npos ? 0 : kind.find("::") + 2);
  if (op.size() > 1 && op.back() == '_' && op[op.size() - 2] != '_') op.pop_back();
  return op;
}

std::string operator_spelling(const std::string& kind) {
  static const std::map<std::string, std::string> spelling = {
      {"eq", "=="}, {"ne", "!="}, {"gt", ">"},  {"ge", ">="}, {"lt", "<"},          {"le", "<="},
      {"mul", "*"}, {"add", "+"}, {"sub", "-"}, {"div", "/"}, {"true_divide", "/"}, {"rsub", "-"}};
  auto it = spelling.find(base_op(kind));
  return it == spelling.end() ? base_op(kind) : it->second;
}

}  // namespace qlint::ir
