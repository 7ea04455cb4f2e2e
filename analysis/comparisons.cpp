#include "analysis/comparisons.h"

#include <cmath>
#include <map>
#include <set>

#include "analysis/constants.h"
#include "analysis/dtype.h"
#include "ir/ops.h"

namespace qlint::analysis {

namespace {

// `v` is zero exactly when `q` equals `c`: `c - q` (TorchScript spells `1.0 - q` as
// `add(neg(q), 1.0)`), `q - c`, `q + (-c)`.
struct ShiftedValue {
  const ir::Value* q = nullptr;
  double c = 0;
  const ir::Node* reader = nullptr;  // the node that reads q: the shift, or the `neg` before it
  int operand = 0;                   // q's place among the reader's operands
};

std::optional<ShiftedValue> shifted_value(const ir::Value* v) {
  const ir::Node* p = v->producer;
  if (p == nullptr || p->inputs.size() < 2) return std::nullopt;
  if (p->inputs.size() >= 3) {  // add/sub/rsub(a, b, alpha): only alpha = 1 is a plain shift
    auto alpha = scalar_constant(p->inputs[2]);
    if (!alpha || *alpha != 1) return std::nullopt;
  }
  const ir::Value* a = p->inputs[0];
  const ir::Value* b = p->inputs[1];
  auto ca = scalar_constant(a);
  auto cb = scalar_constant(b);
  const std::string op = ir::base_op(p->kind);
  if (op == "add" && cb) {
    if (a->producer && a->producer->kind == "aten::neg" && !a->producer->inputs.empty())
      return ShiftedValue{a->producer->inputs[0], *cb, a->producer, 0};
    return ShiftedValue{a, -*cb, p, 0};
  }
  if (op == "add" && ca) return ShiftedValue{b, -*ca, p, 1};
  if ((op == "sub" || op == "rsub") && cb) return ShiftedValue{a, *cb, p, 0};
  if (op == "sub" && ca) return ShiftedValue{b, *ca, p, 1};
  return std::nullopt;
}

// `.to(torch.bool)` (true where nonzero), `v != 0`, `v == 0`: the value tested against zero.
struct ZeroTest {
  const ir::Value* tested = nullptr;
  bool true_where_zero = false;
};

std::optional<ZeroTest> zero_test(const ir::Node& n) {
  // Any overload: a traced `.type(torch.BoolTensor)` is `to(x, device, dtype, ...)`.
  const auto declared = [](const ir::Value* v) { return v->type.dtype; };
  if (ir::base_op(n.kind) == "to" && cast_dtype(n, declared) == ir::DType::Bool && !n.inputs.empty() &&
      declared(n.inputs[0]) != ir::DType::Bool)
    return ZeroTest{n.inputs[0], false};
  if ((n.kind == "aten::ne" || n.kind == "aten::eq") && n.inputs.size() >= 2 && scalar_constant(n.inputs[1]) == 0.0)
    return ZeroTest{n.inputs[0], n.kind == "aten::eq"};
  return std::nullopt;
}

}  // namespace

bool is_comparison_op(const std::string& kind) {
  static const std::set<std::string> ops = {"eq", "ne", "lt", "le", "gt", "ge"};
  return kind.rfind("aten::", 0) == 0 && ops.count(ir::base_op(kind)) > 0;
}

namespace {

// Whether `user` writes `threshold` into `x` where `mask` holds (is_hand_written_clamp).
bool writes_threshold_where(const ir::Node& user, const ir::Value* x, const ir::Value* mask, double threshold) {
  auto is_threshold = [threshold](const ir::Value* v) {
    auto c = scalar_constant(v);
    return c && *c == threshold;
  };
  const std::string op = ir::base_op(user.kind);
  if (user.inputs.size() < 3) return false;
  if (op == "masked_fill") return user.inputs[0] == x && user.inputs[1] == mask && is_threshold(user.inputs[2]);
  if (op == "where") return user.inputs[0] == mask && is_threshold(user.inputs[1]) && user.inputs[2] == x;
  return op == "index_put" && user.inputs[0] == x && is_threshold(user.inputs[2]);
}

}  // namespace

bool is_hand_written_clamp(const ir::Node& comparison) {
  static const std::set<std::string> ordering = {"lt", "le", "gt", "ge"};
  if (!ordering.count(ir::base_op(comparison.kind)) || comparison.inputs.size() < 2 || comparison.output() == nullptr)
    return false;
  const ir::Value* x = comparison.inputs[0];
  const std::optional<double> threshold = scalar_constant(comparison.inputs[1]);
  const ir::Value* mask = comparison.output();
  if (!threshold || mask->users.empty()) return false;
  for (const ir::Node* user : mask->users) {
    // `x[mask] = c`: the indices come as a list of one.
    if (user->kind == "prim::ListConstruct" && user->inputs.size() == 1 && user->output() != nullptr &&
        !user->output()->users.empty()) {
      for (const ir::Node* writer : user->output()->users)
        if (!writes_threshold_where(*writer, x, user->output(), *threshold)) return false;
      continue;
    }
    if (!writes_threshold_where(*user, x, mask, *threshold)) return false;
  }
  return true;
}

bool picks_a_set(const std::string& kind) { return kind == "aten::topk" || kind == "torchvision::nms"; }

int decision_output(const std::string& kind) {
  static const std::map<std::string, int> outputs = {
      {"aten::argmax", 0},    {"aten::argmin", 0},       {"aten::topk", 1},
      {"aten::max", 1},       {"aten::min", 1},          {"aten::kthvalue", 1},
      {"aten::bucketize", 0}, {"aten::searchsorted", 0}, {"torchvision::nms", 0}};
  if (is_cast_op(kind)) return 0;
  auto it = outputs.find(kind);
  return it == outputs.end() ? -1 : it->second;
}

bool is_cast_op(const std::string& kind) { return kind == "aten::to" || kind == "aten::type_as"; }

std::optional<DisguisedComparison> disguised_comparison(const ir::Node& node) {
  auto test = zero_test(node);
  auto shifted = test ? shifted_value(test->tested) : std::nullopt;
  if (!shifted || shifted->c == 0) return std::nullopt;
  return DisguisedComparison{shifted->q, shifted->c, test->true_where_zero, shifted->reader, shifted->operand};
}

std::optional<MaskingBias> masking_bias(const ir::Node& node) {
  constexpr double kMaskingBias = 1000;  // beyond any attention score: the product masks, it does not weigh
  if (ir::base_op(node.kind) != "mul" || node.inputs.size() != 2) return std::nullopt;
  for (int side : {0, 1}) {
    auto factor = scalar_constant(node.inputs[1 - side]);
    if (!factor || std::fabs(*factor) < kMaskingBias) continue;
    // The shift itself, or a cast or view of it (`(1.0 - m).to(dtype)`).
    const ir::Value* v = node.inputs[static_cast<size_t>(side)];
    for (int depth = 0; depth < 4 && v->producer != nullptr && !v->producer->inputs.empty() &&
                        (ir::is_view_op(*v->producer) || is_cast_op(v->producer->kind));
         ++depth)
      v = v->producer->inputs[0];
    auto shifted = shifted_value(v);
    if (shifted && shifted->c == 1)
      return MaskingBias{DisguisedComparison{shifted->q, 1, true, shifted->reader, shifted->operand}, *factor};
  }
  return std::nullopt;
}

}  // namespace qlint::analysis
