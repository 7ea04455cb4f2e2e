#include "sim/float_reference.h"

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/custom_operator.h>

#include <functional>
#include <map>
#include <regex>
#include <vector>

namespace qlint::sim {

namespace {

namespace jit = torch::jit;

// Packing weights and reading packed parameters (in __setstate__, set_weight_bias, ...) is no
// computation on activations.
bool handles_packed_parameters(const std::string& kind) {
  static const std::regex accessor(R"(quantized::conv\w*_(stride|padding|dilation|groups|output_padding|transpose))");
  return kind.find("prepack") != std::string::npos || kind.find("unpack") != std::string::npos ||
         std::regex_match(kind, accessor);
}

void collect(jit::Block* block, std::vector<jit::Node*>& out) {
  for (jit::Node* n : block->nodes()) {
    out.push_back(n);
    for (jit::Block* inner : n->blocks()) collect(inner, out);
  }
}

// Every node of every graph the model runs: its modules' methods and the free functions they
// call (through `callee`, which may give the rewriter's own copy of a shared function).
void for_each_node(const jit::Module& root, const std::function<std::shared_ptr<jit::Graph>(jit::Node*)>& callee,
                   const std::function<void(jit::Node*)>& fn) {
  std::set<const jit::Graph*> visited;
  std::vector<std::shared_ptr<jit::Graph>> pending;
  for (const auto& m : root.named_modules())
    for (const auto& method : m.value.get_methods()) pending.push_back(method.graph());
  while (!pending.empty()) {
    std::shared_ptr<jit::Graph> g = pending.back();
    pending.pop_back();
    if (!visited.insert(g.get()).second) continue;
    std::vector<jit::Node*> nodes;
    collect(g->block(), nodes);
    for (jit::Node* n : nodes) {
      if (n->kind() == c10::prim::CallFunction)
        if (auto called = callee(n)) pending.push_back(called);
      fn(n);
    }
  }
}

std::shared_ptr<jit::Graph> shared_callee(jit::Node* call) {
  auto type = call->input(0)->type()->cast<c10::FunctionType>();
  if (!type || !type->function()->isGraphFunction()) return nullptr;
  return jit::toGraphFunction(*type->function()).graph();
}

// One argument of a kernel's float op: an operand of the kernel (its index), or a constant the
// float op needs and the kernel has no operand for (batch_norm's `training`, ...).
struct Arg {
  Arg(int operand) : operand(operand) {}  // NOLINT(google-explicit-constructor): tables read better
  int operand = -1;
  c10::IValue constant;
};

Arg constant(c10::IValue value) {
  Arg arg(-1);
  arg.constant = std::move(value);
  return arg;
}

// A kernel whose float form is one aten op on its own operands: the quantized kernel's output
// scale and zero point are dropped, everything else is passed on unchanged.
struct OperandOp {
  const char* op;
  std::vector<Arg> args;
};

// The float ops' `cudnn_enabled` and `momentum` change nothing here (CPU, inference); they get
// the values torch.nn's modules pass.
const std::map<std::string, OperandOp>& operand_ops() {
  // Inference: the running statistics, never the batch's (`training` false).
  static const OperandOp batch_norm = {"aten::batch_norm",
                                       {0, 1, 2, 3, 4, constant(false), constant(0.1), 5, constant(true)}};
  static const std::map<std::string, OperandOp> table = {
      {"quantized::add", {"aten::add", {0, 1}}},  // both overloads: a tensor or a scalar
      {"quantized::add_scalar", {"aten::add", {0, 1}}},
      {"quantized::mul", {"aten::mul", {0, 1}}},
      {"quantized::mul_scalar", {"aten::mul", {0, 1}}},
      {"quantized::matmul", {"aten::matmul", {0, 1}}},
      {"quantized::cat", {"aten::cat", {0, 1}}},
      {"quantized::hardswish", {"aten::hardswish", {0}}},
      // The int8 kernel ignores its `inplace` operand (PyTorch 1.13 warns), so the float op is
      // not in place either.
      {"quantized::leaky_relu", {"aten::leaky_relu", {0, 1}}},
      {"quantized::elu", {"aten::elu", {0, 3, 4, 5}}},  // alpha, scale, input_scale
      {"quantized::batch_norm", batch_norm},
      {"quantized::batch_norm1d", batch_norm},
      {"quantized::batch_norm2d", batch_norm},
      {"quantized::batch_norm3d", batch_norm},
      {"quantized::layer_norm", {"aten::layer_norm", {0, 1, 2, 3, 4}}},  // normalized_shape, weight, bias, eps
      {"quantized::group_norm", {"aten::group_norm", {0, 1, 2, 3, 4}}},  // num_groups, weight, bias, eps
      // The int8 kernel always normalizes by the input's own statistics.
      {"quantized::instance_norm",
       {"aten::instance_norm",
        {0, 1, 2, constant(c10::IValue()), constant(c10::IValue()), constant(true), constant(0.1), 3, constant(true)}}},
  };
  return table;
}

// A kernel with prepacked weights: how to unpack them and which float op runs on them.
struct PackedOp {
  const char* unpack;
  const char* op;
  const char* params;  // prefix of the accessors: <params>_stride, ...; null: no parameters
  bool transposed = false;
  // A 1-d kernel packs its weights as 2-d ones of height 1: its stride, padding, ... come back
  // as two-element lists, the first for that added dimension.
  bool one_d = false;
};

const std::map<std::string, PackedOp>& packed_ops() {
  static const std::map<std::string, PackedOp> table = {
      {"quantized::linear", {"quantized::linear_unpack", "aten::linear", nullptr}},
      {"quantized::linear_dynamic", {"quantized::linear_unpack", "aten::linear", nullptr}},
      {"quantized::linear_dynamic_fp16", {"quantized::linear_unpack_fp16", "aten::linear", nullptr}},
      {"quantized::conv1d", {"quantized::conv1d_unpack", "aten::conv1d", "quantized::conv2d", false, true}},
      {"quantized::conv2d", {"quantized::conv2d_unpack", "aten::conv2d", "quantized::conv2d"}},
      {"quantized::conv_transpose1d",
       {"quantized::conv_transpose1d_unpack", "aten::conv_transpose1d", "quantized::conv_transpose2d", true, true}},
      {"quantized::conv_transpose2d",
       {"quantized::conv_transpose2d_unpack", "aten::conv_transpose2d", "quantized::conv_transpose2d", true}},
      // No conv3d: with qnnpack, Debian's PyTorch can neither unpack nor save a converted Conv3d,
      // so there is no model to check a float form against.
  };
  return table;
}

// qlint::rnn_float_weights(Any cells, bool has_biases) -> Tensor[]: a dynamically quantized
// LSTM's or GRU's cell parameters (torch.classes.rnn.CellParamsBase, one per layer and direction)
// as aten::lstm and aten::gru take them: w_ih, w_hh (dequantized), then b_ih, b_hh, per cell. The
// cells are module state, known only when the model runs, so this is an operator rather than a
// graph rewrite; it unpacks with PyTorch's own ops (the cell's __getstate__, linear_unpack).
void rnn_float_weights_op(jit::Stack& stack) {
  const bool has_biases = jit::pop(stack).toBool();
  const c10::IValue cells = jit::pop(stack);
  static const std::shared_ptr<jit::Operator> linear_unpack =
      jit::getAllOperatorsFor(c10::Symbol::fromQualString("quantized::linear_unpack")).at(0);
  std::vector<at::Tensor> weights;
  for (const c10::IValue& cell : cells.toListRef()) {
    // (kind, tensors: b_ih and b_hh, doubles, longs, packed: w_ih and w_hh) for "quantized_dynamic"
    const c10::IValue state = jit::Object(cell.toObject()).run_method("__getstate__");
    const std::vector<c10::IValue> fields = state.toTupleRef().elements().vec();
    if (fields.size() != 5 || !fields[0].isString() || fields[0].toStringRef() != "quantized_dynamic")
      throw std::runtime_error("qlint has no float form of this RNN's cells (only of int8 dynamic ones)");
    for (const c10::IValue& packed : fields[4].toListRef()) {
      jit::Stack unpack_stack = {packed};
      linear_unpack->getOperation()(unpack_stack);
      weights.push_back(unpack_stack.at(0).toTensor().dequantize().contiguous());  // as in packed_op
    }
    if (has_biases)
      for (const c10::IValue& bias : fields[1].toListRef()) weights.push_back(bias.toTensor());
  }
  jit::push(stack, c10::List<at::Tensor>(weights));
}

jit::RegisterOperators g_rnn_ops({
    jit::Operator("qlint::rnn_float_weights(Any cells, bool has_biases) -> Tensor[]", rnn_float_weights_op,
                  c10::AliasAnalysisKind::CONSERVATIVE),
});

// A dynamically quantized RNN's float op: the same operands (without the kwarg-only dtype and
// use_dynamic), its cells' weights unpacked and dequantized.
const std::map<std::string, const char*>& rnn_ops() {
  static const std::map<std::string, const char*> table = {
      {"aten::quantized_lstm", "aten::lstm"},
      {"aten::quantized_gru", "aten::gru"},
  };
  return table;
}

// A fused kernel (`quantized::conv2d_relu`, `linear_relu_dynamic`, ...): the kernel it fuses a
// ReLU onto, or "" when `kind` is not one.
std::string without_relu(const std::string& kind) {
  const size_t at = kind.find("_relu");
  if (at == std::string::npos) return "";
  const size_t end = at + 5;
  if (end != kind.size() && kind[end] != '_') return "";  // `_relu6` is no fused ReLU
  return kind.substr(0, at) + kind.substr(end);
}

// The float form of one int8 node, inserted before it; null when there is none.
class FloatForm {
 public:
  explicit FloatForm(torchscript::GraphRewriter& rewriter) : rewriter_(rewriter) {}

  jit::Value* of(jit::Node* n) { return of(n, n->kind().toQualString()); }

 private:
  jit::Value* of(jit::Node* n, const std::string& kind) {
    if (kind == "aten::quantize_per_tensor") return n->input(0);
    if (kind == "quantized::relu6") return relu6(n);
    if (auto it = operand_ops().find(kind); it != operand_ops().end()) return operand_op(n, it->second);
    if (auto it = packed_ops().find(kind); it != packed_ops().end()) return packed_op(n, it->second);
    if (auto it = rnn_ops().find(kind); it != rnn_ops().end()) return rnn_op(n, it->second);
    if (std::string fused = without_relu(kind); !fused.empty()) return relu(n, of(n, fused));
    return nullptr;
  }

  jit::Value* call(jit::Node* before, const char* op, const std::vector<jit::NamedValue>& args) {
    return rewriter_.insert_call(before, op, args);
  }

  jit::Value* relu(jit::Node* before, jit::Value* x) { return x ? call(before, "aten::relu", {x}) : nullptr; }

  jit::Value* operand_op(jit::Node* n, const OperandOp& form) {
    std::vector<jit::NamedValue> args;
    for (const Arg& arg : form.args) {
      if (arg.operand < 0) {
        args.emplace_back(arg.constant);
      } else if (static_cast<size_t>(arg.operand) < n->inputs().size()) {
        args.emplace_back(n->input(static_cast<size_t>(arg.operand)));
      } else {
        return nullptr;  // an overload with fewer operands than the table knows
      }
    }
    return call(n, form.op, args);
  }

  // Unlike leaky_relu's, relu6's `inplace` is honoured by the int8 kernel: the float form
  // changes its input in place too, so later readers of the input see what they see in int8.
  jit::Value* relu6(jit::Node* n) {
    if (n->inputs().size() < 2) return nullptr;
    c10::optional<c10::IValue> inplace = jit::toIValue(n->input(1));
    if (!inplace || !inplace->isBool()) return nullptr;
    return call(n, inplace->toBool() ? "aten::relu6_" : "aten::relu6", {n->input(0)});
  }

  jit::Value* packed_op(jit::Node* n, const PackedOp& form) {
    std::vector<jit::Value*> parts = rewriter_.unpack(n, call(n, form.unpack, {n->input(1)}));
    // A float model's weights are contiguous; an engine may unpack them in another memory format
    // (qnnpack: channels-last), which would change the float conv's summation order.
    jit::Value* weight = call(n, "aten::contiguous", {call(n, "aten::dequantize", {parts.at(0)})});
    std::vector<jit::NamedValue> args = {n->input(0), weight, parts.at(1)};
    if (form.params == nullptr) return call(n, form.op, args);
    // aten's argument order: conv (stride, padding, dilation, groups), transposed conv (stride,
    // padding, output_padding, groups, dilation).
    const std::vector<const char*> order =
        form.transposed ? std::vector<const char*>{"stride", "padding", "output_padding", "groups", "dilation"}
                        : std::vector<const char*>{"stride", "padding", "dilation", "groups"};
    for (const char* name : order) args.emplace_back(conv_parameter(n, form, name));
    return call(n, form.op, args);
  }

  // Both overloads with cells (`input`: input, hx, cells, ...; `data`: data, batch_sizes, hx,
  // cells, ...) have nine positional operands, has_biases right after the cells. The `_legacy`
  // ones take tensors instead of cells, and have no float form here.
  jit::Value* rnn_op(jit::Node* n, const char* op) {
    const c10::FunctionSchema* schema = n->maybeSchema();
    if (schema == nullptr || n->inputs().size() < 9) return nullptr;
    if (schema->overload_name() != "input" && schema->overload_name() != "data") return nullptr;
    const size_t cells = schema->overload_name() == "data" ? 3 : 2;
    std::vector<jit::NamedValue> args;
    for (size_t i = 0; i < 9; ++i) args.emplace_back(n->input(i));
    args[cells] = call(n, "qlint::rnn_float_weights", {n->input(cells), n->input(cells + 1)});
    return call(n, op, args);
  }

  jit::Value* conv_parameter(jit::Node* n, const PackedOp& form, const std::string& name) {
    jit::Value* value = call(n, (std::string(form.params) + "_" + name).c_str(), {n->input(1)});
    if (!form.one_d || name == "groups") return value;
    return call(n, "aten::slice", {value, int64_t{1}});  // [1, s] -> [s]
  }

  torchscript::GraphRewriter& rewriter_;
};

}  // namespace

bool is_int8_op(const std::string& kind) {
  if (handles_packed_parameters(kind)) return false;
  return kind.rfind("quantized::", 0) == 0 || kind == "aten::quantize_per_tensor" || kind == "aten::quantized_lstm" ||
         kind == "aten::quantized_gru";
}

std::set<std::string> int8_ops(const jit::Module& model) {
  std::set<std::string> kinds;
  for_each_node(model, shared_callee, [&](jit::Node* n) {
    std::string kind = n->kind().toQualString();
    if (is_int8_op(kind)) kinds.insert(kind);
  });
  return kinds;
}

std::string make_float_reference(jit::Module& module, torchscript::GraphRewriter& rewriter) {
  std::vector<jit::Node*> int8;
  auto own_copy = [&](jit::Node* call) { return rewriter.own_copy_of_callee(call); };
  for_each_node(module, own_copy, [&](jit::Node* n) {
    if (is_int8_op(n->kind().toQualString())) int8.push_back(n);
  });
  FloatForm float_form(rewriter);
  for (jit::Node* n : int8) {
    jit::Value* replacement = float_form.of(n);
    if (replacement == nullptr) return n->kind().toQualString();
    // A kernel with several results (an RNN's output and states) has a float op that returns
    // them as a tuple.
    std::vector<jit::Value*> outputs = {replacement};
    if (n->outputs().size() > 1) outputs = rewriter.unpack(n, replacement);
    if (outputs.size() != n->outputs().size()) return n->kind().toQualString();
    rewriter.replace_and_erase(n, outputs);
  }
  return "";
}

}  // namespace qlint::sim
