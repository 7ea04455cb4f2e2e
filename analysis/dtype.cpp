#include "analysis/dtype.h"

#include <optional>
#include <set>
#include <string>

#include "analysis/constants.h"
#include "analysis/facts.h"
#include "ir/ops.h"
#include "ir/schema.h"

namespace qlint::analysis {

namespace {

using ir::DType;

const std::set<std::string> kBoolResultOps = {
    "aten::eq",         "aten::ne",          "aten::lt",      "aten::le",          "aten::gt",
    "aten::ge",         "aten::eq_",         "aten::ne_",     "aten::logical_not", "aten::logical_and",
    "aten::logical_or", "aten::logical_xor", "aten::isnan",   "aten::isinf",       "aten::isfinite",
    "aten::any",        "aten::all",         "aten::isclose", "aten::__not__",     "aten::signbit",
};

// Ops whose result is int64 indices whatever their operand's dtype. `torch.multinomial`'s sampled
// token ids (public round 24: nanoGPT's `generate` appends them to the ids; taken for quantized
// data, the ids were offered a QuantStub of their own).
const std::set<std::string> kIndexResultOps = {
    "aten::argmax",    "aten::argmin",       "aten::argsort",     "aten::nonzero",
    "aten::bucketize", "aten::searchsorted", "aten::multinomial", "aten::argwhere",
};

// The indices of such an op: its second output (TorchScript), or element 1 of the tuple it
// returns (FX).
bool is_indices_of_values_and_indices_op(const ir::Node& node, size_t index) {
  if (ir::returns_values_and_indices(node.kind)) return node.outputs.size() == 2 && index == 1;
  if (node.kind != "prim::TupleIndex" || node.inputs.size() != 2) return false;
  const ir::Node* tuple = node.inputs[0]->producer;
  auto position = scalar_constant(node.inputs[1]);
  return tuple != nullptr && ir::returns_values_and_indices(tuple->kind) && tuple->outputs.size() == 1 && position &&
         *position == 1;
}

const std::set<std::string> kArithmeticOps = {
    "aten::add",     "aten::sub",    "aten::mul",     "aten::rsub",        "aten::add_",       "aten::sub_",
    "aten::mul_",    "aten::where",  "aten::maximum", "aten::minimum",     "aten::fmod",       "aten::remainder",
    "aten::__and__", "aten::__or__", "aten::__xor__", "aten::bitwise_and", "aten::bitwise_or", "aten::bitwise_xor",
};

const std::set<std::string> kTrueDivisionOps = {"aten::div", "aten::div_", "aten::true_divide"};

// `torch.div(i, 8, rounding_mode="floor")` (or "trunc") rounds the quotient: integers stay
// integers, as a cell's row from its flat index.
bool rounds_the_quotient(const ir::Node& node) {
  if (node.inputs.size() < 3 || node.inputs[2]->producer == nullptr) return false;
  const ir::Node& mode = *node.inputs[2]->producer;
  const ir::Attr* value = mode.kind == "prim::Constant" ? mode.attr("value") : nullptr;
  return value != nullptr && value->kind == ir::Attr::Kind::Str && (value->s == "floor" || value->s == "trunc");
}

// Reductions that add or multiply up integers return int64 for bool and integer operands
// (`(x > 0).sum()` counts), as LibTorch's type promotion for them says; floats stay floats.
const std::set<std::string> kIntegerAccumulatingOps = {"aten::sum", "aten::nansum", "aten::prod", "aten::cumsum",
                                                       "aten::cumprod"};

// Unary math that makes floats of bool and integer tensors (PyTorch's default dtype, float32):
// torch.sqrt(torch.tensor([4])) is float32.
const std::set<std::string> kFloatingResultOps = {
    "aten::exp",  "aten::exp2",  "aten::log",     "aten::log2",      "aten::log10", "aten::log1p",
    "aten::sqrt", "aten::rsqrt", "aten::sigmoid", "aten::tanh",      "aten::sin",   "aten::cos",
    "aten::tan",  "aten::asin",  "aten::acos",    "aten::atan",      "aten::sinh",  "aten::cosh",
    "aten::erf",  "aten::erfc",  "aten::expm1",   "aten::reciprocal"};

// Ops LibTorch refuses for bool and integer tensors ("mean(): could not infer output dtype"):
// on such an operand the result has no dtype.
const std::set<std::string> kFloatingOnlyOps = {"aten::mean",    "aten::nanmean",     "aten::var",
                                                "aten::std",     "aten::var_mean",    "aten::std_mean",
                                                "aten::softmax", "aten::log_softmax", "aten::frac"};

int category(DType d) {
  if (d == DType::Bool) return 0;
  if (ir::is_integral(d)) return 1;
  if (ir::is_floating(d)) return 2;
  return -1;
}

DType constant_dtype(const ir::Value* v) {
  if (v->type.kind == ir::Type::Kind::Float) return DType::Float32;
  if (v->type.kind == ir::Type::Kind::Int) return DType::Int64;
  if (v->type.kind == ir::Type::Kind::Bool) return DType::Bool;
  return DType::Unknown;
}

std::optional<DType> dtype_constant(const ir::Value* v) {
  const ir::Node* producer = v->producer;
  if (producer == nullptr || producer->kind != "prim::Constant") return std::nullopt;
  const ir::Attr* value = producer->attr("value");
  if (value == nullptr || value->kind != ir::Attr::Kind::Int) return std::nullopt;
  return ir::dtype_from_scalar_type_code(value->i);
}

// Graphs without a schema on their casts (text fixtures, older FX exports): the dtype code is
// the first int operand after the tensor, the target tensor the first tensor operand.
std::optional<DType> positional_cast_dtype(const ir::Node& node, const DTypeOf& dtype_of) {
  for (size_t i = 1; i < node.inputs.size() && i < 3; ++i) {
    const ir::Value* arg = node.inputs[i];
    if (arg->type.is_tensor()) return dtype_of(arg);
    if (arg->type.kind == ir::Type::Kind::Int) return dtype_constant(arg);
  }
  return dtype_of(node.inputs[0]);
}

// The `dtype=` argument of a factory or reduction, where the importer found one in the op's
// schema and the model gives it as a constant; None means "as usual".
std::optional<DType> dtype_argument(const ir::Node& node) {
  if (ir::schema_of(node) != nullptr) {
    const ir::Value* dtype = ir::named_operand(node, "dtype");
    return dtype ? dtype_constant(dtype) : std::nullopt;
  }
  // The C++ front end names the operand from the declaration it calls.
  const ir::Attr* operand = node.attr("dtype_operand");
  if (operand == nullptr || operand->kind != ir::Attr::Kind::Int || operand->i < 0 ||
      static_cast<size_t>(operand->i) >= node.inputs.size())
    return std::nullopt;
  return dtype_constant(node.inputs[static_cast<size_t>(operand->i)]);
}

DType operand_dtype(const ir::Value* v, const DTypeOf& dtype_of) {
  return v->type.is_tensor() ? dtype_of(v) : constant_dtype(v);
}

DType arithmetic_dtype(const ir::Node& node, const DTypeOf& dtype_of) {
  // aten::where(cond, a, b): the condition does not take part in promotion.
  size_t first = node.kind == "aten::where" && node.inputs.size() == 3 ? 1 : 0;
  size_t last = std::min<size_t>(node.inputs.size(), first + 2);
  DType result = DType::Unknown;
  bool seen = false;
  for (size_t i = first; i < last; ++i) {
    DType d = operand_dtype(node.inputs[i], dtype_of);
    result = seen ? promote(result, d) : d;
    seen = true;
  }
  return result;
}

// A call whose body qlint does not have (a module passed in as an argument, an FX leaf module):
// the dtype its tensor arguments share, else unknown. A traced `fn(self.norm(x))` whose closure
// captured a bool mask passes the mask first; its result is no bool.
DType shared_argument_dtype(const ir::Node& node, const DTypeOf& dtype_of) {
  std::optional<DType> shared;
  for (const ir::Value* in : node.inputs) {
    if (!in->type.is_tensor()) continue;
    DType d = dtype_of(in);
    if (shared && *shared != d) return DType::Unknown;
    shared = d;
  }
  return shared.value_or(DType::Unknown);
}

}  // namespace

std::optional<DType> cast_dtype(const ir::Node& node, const DTypeOf& dtype_of) {
  if (!ir::is_cast(node) || node.inputs.empty()) return std::nullopt;
  if (ir::base_op(node.kind) == "type_as")
    return node.inputs.size() >= 2 ? std::optional(dtype_of(node.inputs[1])) : std::nullopt;
  if (ir::schema_of(node) == nullptr) return positional_cast_dtype(node, dtype_of);
  if (const ir::Value* other = ir::named_operand(node, "other")) return dtype_of(other);
  const ir::Value* dtype = ir::named_operand(node, "dtype");
  // `x.to(device)` and `x.to(dtype=None)` keep the dtype.
  if (dtype == nullptr || dtype->type.kind == ir::Type::Kind::None) return dtype_of(node.inputs[0]);
  // `mask.to(x.dtype)`
  if (dtype->producer != nullptr && dtype->producer->kind == "prim::dtype" && !dtype->producer->inputs.empty())
    return dtype_of(dtype->producer->inputs[0]);
  return dtype_constant(dtype);
}

DType promote(DType a, DType b) {
  if (a == b) return a;
  int ca = category(a), cb = category(b);
  if (ca < 0 || cb < 0) {
    // An unknown operand still cannot make a floating operand less than floating.
    if (ca == 2) return a;
    if (cb == 2) return b;
    return DType::Unknown;
  }
  if (ca != cb) return ca > cb ? a : b;
  if (ca == 2) return a == DType::Float64 || b == DType::Float64 ? DType::Float64 : DType::Float32;
  return a == DType::Int64 || b == DType::Int64 ? DType::Int64 : (a > b ? a : b);
}

DType infer_output_dtype(const ir::Node& node, size_t index, const DTypeOf& dtype_of) {
  const ir::Value* out = node.outputs[index];
  if (!out->type.is_tensor()) return DType::Unknown;
  if (out->type.dtype != DType::Unknown) return out->type.dtype;  // traced graphs say it
  const std::string& k = node.kind;
  if (kBoolResultOps.count(k)) return DType::Bool;
  if (kIndexResultOps.count(k) || is_indices_of_values_and_indices_op(node, index)) return DType::Int64;
  // A quantized tensor's stored integers (uint8, int8 or int32 by its quantized dtype, which
  // is not tracked): integers either way, exact.
  if (k == "aten::int_repr") return DType::Int32;
  if (ir::is_cast(node)) return cast_dtype(node, dtype_of).value_or(DType::Unknown);
  if (auto given = dtype_argument(node)) return *given;
  if (kTrueDivisionOps.count(k)) {
    DType d = arithmetic_dtype(node, dtype_of);
    return category(d) == 2 || d == DType::Unknown || rounds_the_quotient(node) ? d : DType::Float32;
  }
  if (kArithmeticOps.count(k)) return arithmetic_dtype(node, dtype_of);
  if (k == "aten::count_nonzero") return DType::Int64;
  if ((kFloatingResultOps.count(k) || kFloatingOnlyOps.count(k)) && !node.inputs.empty() &&
      node.inputs[0]->type.is_tensor()) {
    DType d = dtype_of(node.inputs[0]);
    if (category(d) == 0 || category(d) == 1) return kFloatingResultOps.count(k) ? DType::Float32 : DType::Unknown;
    return d;
  }
  if (kIntegerAccumulatingOps.count(k) && !node.inputs.empty() && node.inputs[0]->type.is_tensor()) {
    DType d = dtype_of(node.inputs[0]);
    return category(d) == 0 || category(d) == 1 ? DType::Int64 : d;
  }
  if (k == "aten::tensor" && !node.inputs.empty()) return constant_dtype(node.inputs[0]);
  // A constant, or a module's parameter or buffer whose stored tensor the archive holds (a
  // bool `keep` buffer): the stored dtype.
  if (k == "prim::Constant" || k == "prim::GetAttr") {
    const ir::Attr* value = node.attr("value");
    return value && value->kind == ir::Attr::Kind::Tensor ? value->dtype : DType::Unknown;
  }
  if (k == "prim::CallMethod" || k == "prim::CallFunction") return shared_argument_dtype(node, dtype_of);
  // Views, indexing, unary math, cat/stack, conv, linear, ...: the first tensor input's dtype.
  for (const ir::Value* in : node.inputs)
    if (in->type.is_tensor()) return dtype_of(in);
  return DType::Unknown;
}

}  // namespace qlint::analysis
