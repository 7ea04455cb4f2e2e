#include "analysis/cat_items.h"

#include <set>
#include <string>

#include "analysis/constants.h"

namespace qlint::analysis {

namespace {

// An index range [lo, hi) of one dimension of a value.
struct Pick {
  int64_t dim = 0, lo = 0, hi = 0;
};

std::optional<int64_t> rank_of(const ir::Value* v) {
  if (!v->type.sizes) return std::nullopt;
  return static_cast<int64_t>(v->type.sizes->size());
}

std::optional<int64_t> integer(const ir::Value* v) {
  auto c = scalar_constant(v);
  if (!c) return std::nullopt;
  return static_cast<int64_t>(*c);
}

// A dimension operand counted from the front of a value of `rank` dimensions.
std::optional<int64_t> dimension(const ir::Value* operand, int64_t rank) {
  auto d = integer(operand);
  if (!d) return std::nullopt;
  const int64_t normalized = *d < 0 ? *d + rank : *d;
  if (normalized < 0 || normalized >= rank) return std::nullopt;
  return normalized;
}

// Ops whose result holds the operand's elements at the same positions.
bool keeps_positions(const std::string& kind) {
  static const std::set<std::string> kinds = {
      "aten::contiguous", "aten::clone", "aten::detach", "aten::to",       "aten::float",  "aten::sigmoid",
      "aten::relu",       "aten::exp",   "aten::tanh",   "aten::sigmoid_", "aten::relu_",  "aten::clamp",
      "aten::abs",        "aten::neg",   "aten::log",    "aten::sqrt",     "aten::type_as"};
  return kinds.count(kind) > 0;
}

// The first pick of the chain, read off `n`'s result of `out_rank` dimensions (its input has
// one more for a select).
std::optional<Pick> first_pick(const ir::Node& n, const ir::Value& input) {
  auto in_rank = rank_of(&input);
  if (!in_rank || n.inputs.size() < 3) return std::nullopt;
  auto d = dimension(n.inputs[1], *in_rank);
  if (!d) return std::nullopt;
  const int64_t size = (*input.type.sizes)[static_cast<size_t>(*d)];
  auto clamp = [&](int64_t i) { return std::max<int64_t>(0, std::min(i < 0 ? i + size : i, size)); };
  if (n.kind == "aten::select") {
    auto i = integer(n.inputs[2]);
    if (!i) return std::nullopt;
    return Pick{*d, clamp(*i), clamp(*i) + 1};
  }
  // aten::slice(self, dim, start, end, step)
  if (n.inputs.size() < 5 || integer(n.inputs[4]).value_or(0) != 1) return std::nullopt;
  auto start = integer(n.inputs[2]), end = integer(n.inputs[3]);
  if (!start || !end) return std::nullopt;
  return Pick{*d, clamp(*start), clamp(*end)};
}

// Where the pick's dimension was in `n`'s input, given it is `pick.dim` in `n`'s result; false
// when `n` mixes it with other dimensions or is no op the walk knows.
bool follow_back(const ir::Node& n, const ir::Value& input, Pick& pick) {
  const std::string& kind = n.kind;
  if (keeps_positions(kind)) return true;
  auto in_rank = rank_of(&input);
  if (!in_rank || n.inputs.size() < 2) return false;
  if (kind == "aten::select") {
    auto d = dimension(n.inputs[1], *in_rank);
    if (!d) return false;
    if (pick.dim >= *d) ++pick.dim;
    return true;
  }
  if (kind == "aten::slice") {
    auto d = dimension(n.inputs[1], *in_rank);
    if (!d || n.inputs.size() < 5 || integer(n.inputs[4]).value_or(0) != 1) return false;
    if (*d != pick.dim) return true;
    auto start = integer(n.inputs[2]);
    if (!start || *start < 0) return false;
    pick.lo += *start;
    pick.hi += *start;
    return true;
  }
  if (kind == "aten::permute") {
    const ir::Node* list = n.inputs[1]->producer;
    if (list == nullptr || list->kind != "prim::ListConstruct" || pick.dim >= static_cast<int64_t>(list->inputs.size()))
      return false;
    auto d = dimension(list->inputs[static_cast<size_t>(pick.dim)], *in_rank);
    if (!d) return false;
    pick.dim = *d;
    return true;
  }
  if (kind == "aten::transpose" && n.inputs.size() >= 3) {
    auto a = dimension(n.inputs[1], *in_rank), b = dimension(n.inputs[2], *in_rank);
    if (!a || !b) return false;
    if (pick.dim == *a)
      pick.dim = *b;
    else if (pick.dim == *b)
      pick.dim = *a;
    return true;
  }
  if (kind == "aten::flatten" && n.inputs.size() >= 3) {
    auto start = dimension(n.inputs[1], *in_rank), end = dimension(n.inputs[2], *in_rank);
    if (!start || !end || *end < *start) return false;
    if (pick.dim == *start) return *start == *end;  // else the merged dimensions
    if (pick.dim > *start) pick.dim += *end - *start;
    return true;
  }
  if (kind == "aten::unsqueeze") {
    auto d = dimension(n.inputs[1], *in_rank + 1);
    if (!d || pick.dim == *d) return false;
    if (pick.dim > *d) --pick.dim;
    return true;
  }
  return false;
}

std::optional<std::vector<CatItemRead>> items_at(const ir::Node& cat, const Pick& pick) {
  if (cat.inputs.size() < 2 || cat.inputs[0]->producer == nullptr ||
      cat.inputs[0]->producer->kind != "prim::ListConstruct" || !cat.outputs[0]->type.sizes)
    return std::nullopt;
  auto d = dimension(cat.inputs[1], rank_of(cat.outputs[0]).value_or(0));
  if (!d || *d != pick.dim) return std::nullopt;  // a pick along another dimension reads each item in part
  std::vector<CatItemRead> read;
  int64_t offset = 0;
  for (const ir::Value* item : cat.inputs[0]->producer->inputs) {
    if (!item->type.sizes || static_cast<int64_t>(item->type.sizes->size()) <= *d) return std::nullopt;
    const int64_t size = (*item->type.sizes)[static_cast<size_t>(*d)];
    if (offset < pick.hi && pick.lo < offset + size)
      read.push_back({item, pick.lo <= offset && offset + size <= pick.hi});
    offset += size;
  }
  return read;
}

}  // namespace

std::optional<std::vector<CatItemRead>> cat_items_read(const ir::Value* picked) {
  const ir::Value* at = picked;
  std::optional<Pick> pick;
  for (int depth = 0; depth < 32 && at != nullptr && at->producer != nullptr; ++depth) {
    const ir::Node& n = *at->producer;
    if (n.kind == "aten::cat") return pick ? items_at(n, *pick) : std::nullopt;
    if (n.inputs.empty() || n.outputs.size() != 1) return std::nullopt;
    const ir::Value& input = *n.inputs[0];
    if (!pick) {
      if (n.kind != "aten::select" && n.kind != "aten::slice") return std::nullopt;
      pick = first_pick(n, input);
      if (!pick) return std::nullopt;
    } else if (!follow_back(n, input, *pick)) {
      return std::nullopt;
    }
    at = &input;
  }
  return std::nullopt;
}

}  // namespace qlint::analysis
