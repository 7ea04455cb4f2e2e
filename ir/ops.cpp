#include "ir/ops.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "ir/schema.h"

namespace qlint::ir {

bool returns_values_and_indices(const std::string& kind) {
  static const std::set<std::string> ops = {
      "aten::max",  "aten::min",    "aten::sort",      "aten::topk",   "aten::kthvalue",
      "aten::mode", "aten::median", "aten::nanmedian", "aten::cummax", "aten::cummin",
  };
  return ops.count(kind) > 0;
}

std::vector<const Value*> selected_operands(const Node& node, size_t output) {
  static const std::set<std::string> from_the_first = {"aten::amax",
                                                       "aten::amin",
                                                       "aten::max",
                                                       "aten::min",
                                                       "aten::topk",
                                                       "aten::sort",
                                                       "aten::msort",
                                                       "aten::kthvalue",
                                                       "aten::median",
                                                       "aten::nanmedian",
                                                       "aten::mode",
                                                       "aten::cummax",
                                                       "aten::cummin",
                                                       "aten::max_pool1d_with_indices",
                                                       "aten::max_pool2d_with_indices",
                                                       "aten::max_pool3d_with_indices",
                                                       "aten::adaptive_max_pool1d",
                                                       "aten::adaptive_max_pool2d",
                                                       "aten::adaptive_max_pool3d"};
  static const std::set<std::string> between_tensors = {"aten::maximum", "aten::minimum", "aten::fmax",
                                                        "aten::fmin",    "aten::max",     "aten::min"};
  if (node.inputs.empty() || output != 0 || node.outputs.empty()) return {};
  std::vector<const Value*> tensors;
  for (const Value* v : node.inputs)
    if (v->type.is_tensor()) tensors.push_back(v);
  // `torch.max(a, b)` is elementwise, `x.max()` and `x.max(dim)` reduce.
  if (between_tensors.count(node.kind) && tensors.size() == 2 && tensors[0] == node.inputs[0]) return tensors;
  if (node.kind == "aten::where" && node.inputs.size() == 3 && node.inputs[1]->type.is_tensor() &&
      node.inputs[2]->type.is_tensor())
    return {node.inputs[1], node.inputs[2]};
  if (from_the_first.count(node.kind) && tensors.size() == 1 && tensors[0] == node.inputs[0]) return tensors;
  return {};
}

namespace {

// Views that keep the whole of their operand, only reshaped, moved or relabelled; any other
// view picks a part (select, slice, narrow, diagonal, unfold, split, ...).
bool keeps_the_whole(const std::string& op) {
  static const std::set<std::string> whole = {
      "unsqueeze", "squeeze",    "view",         "reshape",   "permute",  "transpose",  "flatten",
      "unflatten", "contiguous", "expand",       "expand_as", "view_as",  "reshape_as", "t",
      "detach",    "alias",      "movedim",      "moveaxis",  "swapaxes", "swapdims",   "numpy_T",
      "mT",        "clone",      "view_as_real", "real",      "squeeze_", "unsqueeze_"};
  return whole.count(op) > 0;
}

// The view ops of graphs without schemas (text fixtures, calls the C++ front end cannot match);
// whether one picks a part is keeps_the_whole's to say, as for views a schema names.
bool known_view(const std::string& kind) {
  static const std::set<std::string> views = {
      "aten::slice",     "aten::select",  "aten::narrow",     "aten::unsqueeze", "aten::squeeze",    "aten::view",
      "aten::reshape",   "aten::permute", "aten::transpose",  "aten::flatten",   "aten::contiguous", "aten::expand",
      "aten::expand_as", "aten::view_as", "aten::reshape_as", "aten::t",         "aten::detach",     "aten::alias",
  };
  return views.count(kind) > 0;
}

// Ops that copy their operand, or a part of it, into a new tensor: the same values, though no
// alias annotation says so. Nearest-neighbour resizing, repeating, flipping and shuffling keep
// every value as it was (a 0/1 mask resized to a feature map's size with
// `F.interpolate(mask[None].float(), size=...)` is still the mask); gathering and max pooling
// pick some of them.
const std::map<std::string, bool>& copying_views() {
  static const std::map<std::string, bool> copies = {
      {"aten::index", true},
      {"aten::index_select", true},
      {"aten::masked_select", true},
      {"aten::__getitem__", true},
      {"aten::clone", false},
      {"aten::gather", true},
      {"aten::take", true},
      {"aten::take_along_dim", true},
      {"aten::max_pool1d", true},
      {"aten::max_pool2d", true},
      {"aten::max_pool3d", true},
      {"aten::upsample_nearest1d", false},
      {"aten::upsample_nearest2d", false},
      {"aten::upsample_nearest3d", false},
      {"aten::_upsample_nearest_exact1d", false},
      {"aten::_upsample_nearest_exact2d", false},
      {"aten::_upsample_nearest_exact3d", false},
      {"aten::repeat", false},
      {"aten::repeat_interleave", false},
      {"aten::tile", false},
      {"aten::flip", false},
      {"aten::roll", false},
      {"aten::pixel_shuffle", false},
      {"aten::pixel_unshuffle", false},
      {"aten::channel_shuffle", false},
  };
  return copies;
}

// `F.interpolate(mask, size=...)` as FX records it, a call of the Python function (TorchScript
// records the ATen op it runs, upsample_nearest2d): in its default mode, nearest, it keeps every
// value. The FX front end names its operands after the function's parameters.
bool resizes_by_nearest(const Node& node) {
  if (node.kind != "aten::interpolate" || node.inputs.empty() || schema_of(node) != nullptr) return false;
  const Value* mode = python_operand(node, "mode");
  const Attr* value = mode != nullptr && mode->producer != nullptr && mode->producer->kind == "prim::Constant"
                          ? mode->producer->attr("value")
                          : nullptr;
  return value != nullptr && value->kind == Attr::Kind::Str && (value->s == "nearest" || value->s == "nearest-exact");
}

}  // namespace

namespace {

// A trace gives each call of a module a method of its own (`forward1`, `forward2`), recorded
// from the same Python code: on the same tensor, the same ops.
std::string without_trace_number(const Attr& a) { return without_trailing_digits(a.s); }

// Where a node came from (the ONNX node's name, the module instance a front end recorded) says
// nothing about what it computes.
bool provenance(const std::string& attribute) { return attribute == "onnx_node" || attribute == "module"; }

// A call of a module or function counts as its arguments: an exported model runs in eval mode,
// where the same module on the same tensor computes the same values.
bool pure(const Node& n) { return n.blocks.empty() && !writes_anything_in_place(n) && !draws_random_numbers(n); }

bool computes_the_same(const Value* a, const Value* b, int depth) {
  if (a == b) return true;
  if (a == nullptr || b == nullptr || depth <= 0 || a->producer == nullptr || b->producer == nullptr) return false;
  const Node& x = *a->producer;
  const Node& y = *b->producer;
  if (x.kind != y.kind || x.inputs.size() != y.inputs.size() || !pure(x) || output_index(*a) != output_index(*b))
    return false;
  if (!same_attributes(x, y)) return false;
  for (size_t i = 0; i < x.inputs.size(); ++i)
    if (!computes_the_same(x.inputs[i], y.inputs[i], depth - 1)) return false;
  return true;
}

}  // namespace

bool computes_the_same(const Value* a, const Value* b) {
  constexpr int kMaxDepth = 12;  // ops back from each value: a few views and casts, not a network
  return computes_the_same(a, b, kMaxDepth);
}

bool same_attributes(const Node& a, const Node& b) {
  if (a.attrs.size() != b.attrs.size()) return false;
  const bool call = a.kind == "prim::CallMethod";
  for (size_t i = 0; i < a.attrs.size(); ++i) {
    const auto& [name, value] = a.attrs[i];
    if (name != b.attrs[i].first) return false;
    if (provenance(name)) continue;
    if (call && (name == "name" || name == "callee")
            ? without_trace_number(value) != without_trace_number(b.attrs[i].second)
            : !(value == b.attrs[i].second))
      return false;
  }
  return true;
}

bool is_cast(const Node& node) {
  const std::string op = base_op(node.kind);
  return node.kind.rfind("aten::", 0) == 0 && (op == "to" || op == "type_as");
}

namespace {

// An int the graph states as a constant (`value` of prim::Constant); nullopt for None or
// anything computed.
std::optional<int64_t> stated_int(const Value* v) {
  if (v == nullptr || v->producer == nullptr || v->producer->kind != "prim::Constant") return std::nullopt;
  const Attr* value = v->producer->attr("value");
  if (value == nullptr || value->kind != Attr::Kind::Int) return std::nullopt;
  return value->i;
}

bool stated_none(const Value* v) {
  if (v == nullptr || v->producer == nullptr || v->producer->kind != "prim::Constant") return false;
  const Attr* value = v->producer->attr("value");
  return v->type.kind == Type::Kind::None && (value == nullptr || value->kind == Attr::Kind::None);
}

// `m[:, :, None]` slices every dimension whole (`aten::slice(m, d, None, None, 1)`, or the end
// as INT64_MAX in older archives): the view keeps every value, no part.
bool slices_whole(const Node& node) {
  if (node.kind != "aten::slice" || node.inputs.size() != 5) return false;
  const auto start = stated_int(node.inputs[2]), end = stated_int(node.inputs[3]), step = stated_int(node.inputs[4]);
  const bool from_the_start = stated_none(node.inputs[2]) || (start && *start == 0);
  const bool to_the_end = stated_none(node.inputs[3]) || (end && *end >= (int64_t{1} << 62));
  return from_the_start && to_the_end && step && *step == 1;
}

}  // namespace

bool is_view_op(const Node& node, bool* is_part) {
  // `assert m is not None` refines an Optional: the same value.
  if (node.kind == "prim::unchecked_cast") {
    if (is_part) *is_part = false;
    return !node.inputs.empty();
  }
  if (auto it = copying_views().find(node.kind); it != copying_views().end()) {
    if (is_part) *is_part = it->second;
    return true;
  }
  if (resizes_by_nearest(node)) {
    if (is_part) *is_part = false;
    return true;
  }
  if (node.inputs.empty() || node.outputs.empty() || is_cast(node)) return false;
  const bool aliases =
      schema_of(node) ? output_aliases_operand(node, 0, 0).value_or(false) && !writes_operand(node, 0).value_or(true)
                      : known_view(node.kind);
  if (aliases) {
    if (is_part) *is_part = !keeps_the_whole(base_op(node.kind)) && !slices_whole(node);
    return true;
  }
  return false;
}

bool may_alias_first_operand(const Node& node) {
  if (const Schema* schema = schema_of(node)) {
    for (const SchemaArgument& ret : schema->returns)
      if (!ret.alias_set.empty()) return true;
    return false;
  }
  static const std::set<std::string> kinds = {"aten::select",
                                              "aten::slice",
                                              "aten::view",
                                              "aten::view_as",
                                              "aten::reshape",
                                              "aten::reshape_as",
                                              "aten::unsqueeze",
                                              "aten::squeeze",
                                              "aten::transpose",
                                              "aten::permute",
                                              "aten::expand",
                                              "aten::expand_as",
                                              "aten::narrow",
                                              "aten::t",
                                              "aten::flatten",
                                              "aten::unflatten",
                                              "aten::diagonal",
                                              "aten::as_strided",
                                              "aten::unbind",
                                              "aten::split",
                                              "aten::chunk",
                                              "aten::split_with_sizes",
                                              "aten::tensor_split",
                                              "aten::movedim",
                                              "aten::swapaxes",
                                              "aten::detach",
                                              "aten::alias",
                                              "aten::contiguous",
                                              "aten::to",
                                              "aten::type_as",
                                              "aten::float",
                                              "aten::real",
                                              "aten::view_as_real",
                                              "aten::numpy_T",
                                              "aten::mT",
                                              "aten::__getitem__",
                                              "prim::ListConstruct",
                                              "prim::ListUnpack",
                                              "prim::TupleConstruct",
                                              "prim::TupleUnpack",
                                              "prim::TupleIndex",
                                              "prim::DictConstruct",
                                              "aten::dict",
                                              "aten::list",
                                              "prim::unchecked_cast",
                                              "aten::values",
                                              "aten::items"};
  return kinds.count(node.kind) > 0;
}

namespace {

// Graphs without schemas: stores into containers and module state, and ops spelled in place.
bool stores_without_schema(const Node& node) {
  static const std::set<std::string> stores = {"prim::SetAttr", "aten::append", "aten::_set_item", "aten::insert",
                                               "aten::extend"};
  return stores.count(node.kind) > 0;
}

bool spelled_in_place(const std::string& kind) {
  const std::string op = kind.substr(kind.find("::") == std::string::npos ? 0 : kind.find("::") + 2);
  return op.size() > 1 && op.back() == '_' && op[op.size() - 2] != '_';
}

}  // namespace

bool is_sampling_op(const std::string& kind) {
  // Most sampling ops have an overload without the generator (`randint.low`), so their names
  // count too. Dropout is left out: exported models run it in eval mode, where it draws nothing.
  static const std::set<std::string> sampling = {
      "rand",      "randn",       "randint",    "randperm", "rand_like", "randn_like",      "randint_like",
      "bernoulli", "multinomial", "normal",     "poisson",  "binomial",  "uniform",         "exponential",
      "geometric", "cauchy",      "log_normal", "random",   "rrelu",     "rrelu_with_noise"};
  if (kind.rfind("aten::", 0) != 0) return false;
  std::string name = kind.substr(6);
  if (!name.empty() && name.back() == '_') name.pop_back();
  return sampling.count(name) > 0;
}

bool draws_random_numbers(const Node& node) {
  if (is_sampling_op(node.kind)) return true;
  const Schema* schema = schema_of(node);
  return schema != nullptr &&
         std::any_of(schema->arguments.begin(), schema->arguments.end(),
                     [](const SchemaArgument& a) { return a.type == "Generator" || a.type == "Generator?"; });
}

bool writes_in_place(const Node& node, size_t operand) {
  if (operand >= node.inputs.size()) return false;
  if (node.kind == "prim::SetAttr") return true;
  if (auto writes = writes_operand(node, operand)) return *writes;
  if (stores_without_schema(node)) return true;
  return operand == 0 && (spelled_in_place(node.kind) || node.kind == "aten::copy_" || node.kind == "aten::index_put_");
}

bool writes_anything_in_place(const Node& node) {
  for (size_t i = 0; i < node.inputs.size(); ++i)
    if (writes_in_place(node, i)) return true;
  return node.kind == "prim::SetAttr";
}

std::string without_trailing_digits(std::string name) {
  while (!name.empty() && std::isdigit(static_cast<unsigned char>(name.back()))) name.pop_back();
  return name;
}

std::string canonical_aten_name(const std::string& name) {
  // native_functions.yaml's aliases of the ops qlint's rules and simulator name.
  static const std::map<std::string, std::string> aliases = {
      {"multiply", "mul"},       {"subtract", "sub"},     {"divide", "div"},      {"true_divide", "div"},
      {"greater", "gt"},         {"greater_equal", "ge"}, {"less", "lt"},         {"less_equal", "le"},
      {"not_equal", "ne"},       {"clip", "clamp"},       {"absolute", "abs"},    {"negative", "neg"},
      {"fix", "trunc"},          {"concat", "cat"},       {"concatenate", "cat"}, {"swapaxes", "transpose"},
      {"swapdims", "transpose"}, {"moveaxis", "movedim"}, {"arctan2", "atan2"},   {"special_expit", "sigmoid"},
      {"expit", "sigmoid"}};
  const bool in_place = name.size() > 1 && name.back() == '_' && name[name.size() - 2] != '_';
  const std::string plain = in_place ? name.substr(0, name.size() - 1) : name;
  auto it = aliases.find(plain);
  return it == aliases.end() ? name : it->second + (in_place ? "_" : "");
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
