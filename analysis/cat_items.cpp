#include "analysis/cat_items.h"

#include <algorithm>
#include <limits>
#include <set>
#include <string>
#include <utility>

#include "analysis/constants.h"
#include "ir/ops.h"
#include "ir/schema.h"

namespace qlint::analysis {

namespace {

// An index range [lo, hi) of one dimension of a value.
struct Pick {
  int64_t dim = 0, lo = 0, hi = 0;
};

constexpr int kMaxDepth = 32;  // ops walked back from a value, as for the pick's chain

// Where a walk back is: in the function it started in, or in a function of the file it went into
// from a call's result (`torch::cat({to_corners(x.slice(1, 0, 4)), score, cls}, 1)`: public C++
// round 26's YOLO ports), where a parameter is that call's argument.
struct Frame {
  const ir::Model& model;
  const ir::Node* call = nullptr;  // the call whose callee the walk is in; null at the start
  const Frame* outer = nullptr;
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

bool is_none(const ir::Value* v) { return v->type.kind == ir::Type::Kind::None; }

// A dimension operand counted from the front of a value of `rank` dimensions. A dimension
// counted from the end needs the rank; one counted from the front does not (the C++ front end
// knows no sizes: `det.select(1, 5)`).
std::optional<int64_t> dimension(const ir::Value* operand, std::optional<int64_t> rank) {
  auto d = integer(operand);
  if (!d) return std::nullopt;
  if (*d < 0 && !rank) return std::nullopt;
  const int64_t normalized = *d < 0 ? *d + *rank : *d;
  if (normalized < 0 || (rank && normalized >= *rank)) return std::nullopt;
  return normalized;
}

// Ops whose result holds the operand's elements at the same positions.
bool keeps_positions(const std::string& kind) {
  static const std::set<std::string> kinds = {
      "aten::contiguous", "aten::clone", "aten::detach",   "aten::to",    "aten::float", "aten::sigmoid", "aten::relu",
      "aten::exp",        "aten::tanh",  "aten::sigmoid_", "aten::relu_", "aten::clamp", "aten::abs",     "aten::neg",
      "aten::log",        "aten::sqrt",  "aten::type_as",  "aten::cpu",   "aten::cuda"};
  return kinds.count(kind) > 0;
}

// aten::slice(self, dim, start, end, step): the C++ front end leaves out a default step.
bool slices_with_step_one(const ir::Node& n) {
  return n.kind == "aten::slice" && n.inputs.size() >= 4 && (n.inputs.size() < 5 || integer(n.inputs[4]) == 1);
}

// A slice's bound: a constant, or None (the start or end of the dimension, `Slice(4, None)`).
std::optional<int64_t> slice_bound(const ir::Value* operand, int64_t none) {
  return is_none(operand) ? std::optional<int64_t>(none) : integer(operand);
}

std::optional<int64_t> size_along(const ir::Value* v, int64_t dim, int depth, const Frame& f);

// A factory's size along `dim` from its constant size list (`torch::ones({n, 1})`, a batch-index
// column put before the boxes: 1 wide along dimension 1, whatever n is).
std::optional<int64_t> factory_size_along(const ir::Node& n, int64_t dim) {
  static const std::set<std::string> factories = {"aten::ones", "aten::zeros", "aten::empty",
                                                  "aten::full", "aten::rand",  "aten::randn"};
  if (!factories.count(n.kind) || n.inputs.empty() || dim < 0) return std::nullopt;
  const ir::Node* list = n.inputs[0]->producer;
  if (list == nullptr || list->kind != "prim::ListConstruct" || static_cast<size_t>(dim) >= list->inputs.size())
    return std::nullopt;
  auto size = integer(list->inputs[static_cast<size_t>(dim)]);
  return size && *size >= 0 ? size : std::nullopt;
}

// `x.index_select(d, idx)` keeps x's positions along every dimension but d (rows kept by an NMS).
std::optional<int64_t> selected_dimension(const ir::Node& n) {
  if (n.kind != "aten::index_select" || n.inputs.size() < 3) return std::nullopt;
  return dimension(n.inputs[1], rank_of(n.inputs[0]));
}

// The size along `dim` of a reduction's result (`torch::max(x, 1, true)`, `x.argmax(1)`,
// `x.sum(1)`): 1 along a dimension it keeps, the operand's size along the others.
std::optional<int64_t> reduced_size_along(const ir::Node& n, int64_t dim, int depth, const Frame& f) {
  const ir::Schema* schema = ir::schema_of(n);
  const ir::Value* reduced = ir::named_operand(n, "dim");
  if (schema == nullptr || !schema->argument_index("keepdim") || reduced == nullptr || n.inputs.empty())
    return std::nullopt;
  std::optional<int64_t> d;
  if (const ir::Node* list = reduced->producer; list != nullptr && list->kind == "prim::ListConstruct") {
    if (list->inputs.size() == 1) d = dimension(list->inputs[0], rank_of(n.inputs[0]));
  } else {
    d = dimension(reduced, rank_of(n.inputs[0]));
  }
  // Left out, keepdim is false (its default in every reduction's schema).
  const ir::Value* keepdim = ir::named_operand(n, "keepdim");
  auto keeps = keepdim != nullptr ? scalar_constant(keepdim) : std::optional<double>(0);
  if (!d || !keeps) return std::nullopt;
  if (*keeps != 0) return dim == *d ? std::optional<int64_t>(1) : size_along(n.inputs[0], dim, depth + 1, f);
  return size_along(n.inputs[0], dim < *d ? dim : dim + 1, depth + 1, f);
}

// The size along a slice's own dimension: its window of the operand. Of an operand whose size
// is not known, a window with constant bounds counted from the front is taken at its width:
// code that slices `[0, 4)` of a dimension reads four columns there (box coordinates); a
// narrower operand would make the picks that count on them fail rather than read another part.
std::optional<int64_t> window_size(const ir::Node& n, int64_t dim, int depth, const Frame& f) {
  const int64_t end_of_dimension = std::numeric_limits<int64_t>::max();
  auto start = slice_bound(n.inputs[2], 0), end = slice_bound(n.inputs[3], end_of_dimension);
  if (!start || !end) return std::nullopt;
  if (auto size = size_along(n.inputs[0], dim, depth + 1, f)) {
    auto clamp = [&](int64_t i) { return std::max<int64_t>(0, std::min(i < 0 ? i + *size : i, *size)); };
    return std::max<int64_t>(0, clamp(*end) - clamp(*start));
  }
  if (*start < 0 || *end < *start || *end == end_of_dimension) return std::nullopt;
  return *end - *start;
}

// The size of `v` along dimension `dim` (counted from the front): from its type when the front
// end knows its sizes, else from the ops that made it, where they fix it: an unsqueeze's new
// dimension, a reduction that keeps its dimension, a slice's window, a cat's parts.
std::optional<int64_t> size_along(const ir::Value* v, int64_t dim, int depth, const Frame& f) {
  if (v->type.sizes) {
    const auto& sizes = *v->type.sizes;
    if (dim >= static_cast<int64_t>(sizes.size()) || sizes[static_cast<size_t>(dim)] < 0) return std::nullopt;
    return sizes[static_cast<size_t>(dim)];
  }
  if (depth >= kMaxDepth) return std::nullopt;
  if (v->producer == nullptr) {  // a parameter of the function the walk went into: the argument
    const ir::Function* callee = f.call != nullptr ? ir::callee_of(f.model, *f.call) : nullptr;
    if (callee == nullptr || v->param_of != &callee->body) return std::nullopt;
    const auto& params = callee->body.params;
    const auto arguments = ir::call_arguments(*f.call);
    const size_t i = static_cast<size_t>(std::find(params.begin(), params.end(), v) - params.begin());
    return i < arguments.size() ? size_along(arguments[i], dim, depth + 1, *f.outer) : std::nullopt;
  }
  const ir::Node& n = *v->producer;
  if (const ir::Value* returned = ir::returned_for(f.model, *v)) {
    const Frame inner{f.model, &n, &f};
    return size_along(returned, dim, depth + 1, inner);
  }
  if (n.kind == "prim::TupleIndex") {  // `std::get<0>(torch::max(x, 1, true))`: an output of the op
    const ir::Node* tuple = n.inputs[0]->producer;
    auto i = integer(n.inputs[1]);
    if (tuple == nullptr || tuple->kind != "prim::TupleConstruct" || !i || *i < 0 ||
        static_cast<size_t>(*i) >= tuple->inputs.size())
      return std::nullopt;
    return size_along(tuple->inputs[static_cast<size_t>(*i)], dim, depth + 1, f);
  }
  if (auto size = factory_size_along(n, dim)) return size;
  if (n.inputs.empty()) return std::nullopt;
  const ir::Value* input = n.inputs[0];
  auto input_rank = rank_of(input);
  // `fill_` writes values, not sizes: `torch::ones({n, 1}).fill_(0)` is as wide as before.
  if (keeps_positions(n.kind) || n.kind == "aten::fill_") return size_along(input, dim, depth + 1, f);
  if (auto selected = selected_dimension(n))
    return *selected == dim ? std::nullopt : size_along(input, dim, depth + 1, f);
  if (n.kind == "aten::unsqueeze" && n.inputs.size() >= 2) {
    auto d = dimension(n.inputs[1], input_rank ? std::optional<int64_t>(*input_rank + 1) : std::nullopt);
    if (!d) return std::nullopt;
    if (dim == *d) return 1;
    return size_along(input, dim < *d ? dim : dim - 1, depth + 1, f);
  }
  if (n.kind == "aten::select" && n.inputs.size() >= 3) {
    auto d = dimension(n.inputs[1], input_rank);
    if (!d) return std::nullopt;
    return size_along(input, dim < *d ? dim : dim + 1, depth + 1, f);
  }
  if (slices_with_step_one(n)) {
    auto d = dimension(n.inputs[1], input_rank);
    if (!d) return std::nullopt;
    return dim == *d ? window_size(n, dim, depth, f) : size_along(input, dim, depth + 1, f);
  }
  if (n.kind == "aten::cat" && n.inputs.size() >= 2) {
    const ir::Node* list = input->producer;
    auto d = dimension(n.inputs[1], rank_of(v));
    if (list == nullptr || list->kind != "prim::ListConstruct" || list->inputs.empty() || !d) return std::nullopt;
    if (dim != *d) return size_along(list->inputs[0], dim, depth + 1, f);
    int64_t total = 0;
    for (const ir::Value* item : list->inputs) {
      auto size = size_along(item, dim, depth + 1, f);
      if (!size) return std::nullopt;
      total += *size;
    }
    return total;
  }
  return reduced_size_along(n, dim, depth, f);
}

// Whether something writes into `v` in place, or into a view of it (`det.select(1, 5).fill_(0)`):
// a pick of `v` may then read what was written rather than what `v` was made of.
bool written_in_place(const ir::Value* v, int depth = 0) {
  if (depth >= kMaxDepth) return true;
  for (const ir::Node* user : v->users) {
    if (user->inputs.empty() || user->inputs[0] != v) continue;
    if (ir::writes_in_place(*user, 0)) return true;
    if (ir::may_alias_first_operand(*user))
      for (const ir::Value* out : user->outputs)
        if (written_in_place(out, depth + 1)) return true;
  }
  return false;
}

// The first pick of the chain, read off `n` and its input.
std::optional<Pick> first_pick(const ir::Node& n, const ir::Value& input, const Frame& f) {
  if (n.inputs.size() < 3) return std::nullopt;
  auto d = dimension(n.inputs[1], rank_of(&input));
  if (!d) return std::nullopt;
  const std::optional<int64_t> size = size_along(&input, *d, 0, f);
  // An index counted from the end needs the size; one counted from the front is where it is.
  auto place = [&](int64_t i) -> std::optional<int64_t> {
    if (!size) return i < 0 ? std::nullopt : std::optional<int64_t>(i);
    return std::max<int64_t>(0, std::min(i < 0 ? i + *size : i, *size));
  };
  if (n.kind == "aten::select") {
    auto i = integer(n.inputs[2]);
    auto at = i ? place(*i) : std::nullopt;
    if (!at) return std::nullopt;
    return Pick{*d, *at, *at + 1};
  }
  if (!slices_with_step_one(n)) return std::nullopt;
  auto start = slice_bound(n.inputs[2], 0), end = slice_bound(n.inputs[3], std::numeric_limits<int64_t>::max());
  auto lo = start ? place(*start) : std::nullopt, hi = end ? place(*end) : std::nullopt;
  if (!lo || !hi) return std::nullopt;
  return Pick{*d, *lo, *hi};
}

// Where the pick's dimension was in `n`'s input, given it is `pick.dim` in `n`'s result; false
// when `n` mixes it with other dimensions or is no op the walk knows.
bool follow_back(const ir::Node& n, const ir::Value& input, Pick& pick) {
  const std::string& kind = n.kind;
  if (keeps_positions(kind)) return true;
  auto in_rank = rank_of(&input);
  if (n.inputs.size() < 2) return false;
  if (kind == "aten::select") {
    auto d = dimension(n.inputs[1], in_rank);
    if (!d) return false;
    if (pick.dim >= *d) ++pick.dim;
    return true;
  }
  if (kind == "aten::slice") {
    auto d = dimension(n.inputs[1], in_rank);
    if (!d || !slices_with_step_one(n)) return false;
    if (*d != pick.dim) return true;
    auto start = slice_bound(n.inputs[2], 0);
    if (!start || *start < 0) return false;
    pick.lo += *start;
    pick.hi = pick.hi > std::numeric_limits<int64_t>::max() - *start ? pick.hi : pick.hi + *start;
    return true;
  }
  if (auto selected = selected_dimension(n)) return *selected != pick.dim;
  if (kind == "aten::permute") {
    const ir::Node* list = n.inputs[1]->producer;
    if (!in_rank || list == nullptr || list->kind != "prim::ListConstruct" ||
        pick.dim >= static_cast<int64_t>(list->inputs.size()))
      return false;
    auto d = dimension(list->inputs[static_cast<size_t>(pick.dim)], *in_rank);
    if (!d) return false;
    pick.dim = *d;
    return true;
  }
  if (kind == "aten::transpose" && n.inputs.size() >= 3) {
    auto a = dimension(n.inputs[1], in_rank), b = dimension(n.inputs[2], in_rank);
    if (!a || !b) return false;
    if (pick.dim == *a)
      pick.dim = *b;
    else if (pick.dim == *b)
      pick.dim = *a;
    return true;
  }
  if (kind == "aten::flatten" && n.inputs.size() >= 3) {
    auto start = dimension(n.inputs[1], in_rank), end = dimension(n.inputs[2], in_rank);
    if (!start || !end || *end < *start) return false;
    if (pick.dim == *start) return *start == *end;  // else the merged dimensions
    if (pick.dim > *start) pick.dim += *end - *start;
    return true;
  }
  if (kind == "aten::unsqueeze") {
    auto d = dimension(n.inputs[1], in_rank ? std::optional<int64_t>(*in_rank + 1) : std::nullopt);
    if (!d || pick.dim == *d) return false;
    if (pick.dim > *d) --pick.dim;
    return true;
  }
  return false;
}

// The items a pick reads. An item whose size is not known ends the walk: the items after it
// start at offsets not known either, unless the pick ends before it.
std::optional<std::vector<CatItemRead>> items_at(const ir::Node& cat, const Pick& pick, const Frame& f, int depth = 0) {
  if (cat.inputs.size() < 2 || cat.inputs[0]->producer == nullptr ||
      cat.inputs[0]->producer->kind != "prim::ListConstruct")
    return std::nullopt;
  auto d = dimension(cat.inputs[1], rank_of(cat.outputs[0]));
  if (!d || *d != pick.dim) return std::nullopt;  // a pick along another dimension reads each item in part
  std::vector<CatItemRead> read;
  int64_t offset = 0;
  for (const ir::Value* item : cat.inputs[0]->producer->inputs) {
    if (offset >= pick.hi) break;
    auto size = size_along(item, *d, 0, f);
    if (!size) return std::nullopt;
    const bool whole = pick.lo <= offset && offset + *size <= pick.hi;
    // A part that is a cat of its own along the same dimension (`torch::cat({batch_index, dets},
    // 1)` of `dets = torch::cat({box, score, cls}, 1)`): the items of it the pick reads.
    const ir::Node* inner = item->producer;
    std::optional<std::vector<CatItemRead>> nested;
    if (!whole && offset < pick.hi && pick.lo < offset + *size && inner != nullptr && inner->kind == "aten::cat" &&
        depth < kMaxDepth)
      nested =
          items_at(*inner, Pick{pick.dim, std::max<int64_t>(pick.lo - offset, 0), std::min(pick.hi - offset, *size)}, f,
                   depth + 1);
    if (nested)
      read.insert(read.end(), nested->begin(), nested->end());
    else if (offset < pick.hi && pick.lo < offset + *size)
      read.push_back({item, whole});
    offset += *size;
  }
  if (read.empty()) return std::nullopt;  // past the items this walk can place
  return read;
}

// The cat that `picked` is a pick of, and the pick as the cat's result sees it.
std::optional<std::pair<const ir::Node*, Pick>> cat_pick(const ir::Value* picked, const Frame& f) {
  const ir::Value* at = picked;
  std::optional<Pick> pick;
  for (int depth = 0; depth < kMaxDepth && at != nullptr && at->producer != nullptr; ++depth) {
    const ir::Node& n = *at->producer;
    if (n.kind == "aten::cat") return pick ? std::optional(std::make_pair(&n, *pick)) : std::nullopt;
    if (n.inputs.empty() || n.outputs.size() != 1) return std::nullopt;
    const ir::Value& input = *n.inputs[0];
    if (!pick) {
      if (n.kind != "aten::select" && n.kind != "aten::slice") return std::nullopt;
      pick = first_pick(n, input, f);
      if (!pick) return std::nullopt;
    } else if (!follow_back(n, input, *pick)) {
      return std::nullopt;
    }
    at = &input;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::vector<CatItemRead>> cat_items_read(const ir::Model& model, const ir::Value* picked) {
  const Frame f{model};
  auto found = cat_pick(picked, f);
  return found ? items_at(*found->first, found->second, f) : std::nullopt;
}

std::optional<std::vector<CatItemRead>> cat_items_holding(const ir::Model& model, const ir::Value* picked) {
  const Frame f{model};
  auto found = cat_pick(picked, f);
  if (!found || written_in_place(found->first->outputs[0])) return std::nullopt;
  return items_at(*found->first, found->second, f);
}

}  // namespace qlint::analysis
