#include "sim/float_reference.h"

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/ir.h>

#include <functional>
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

bool is_int8_op(const std::string& kind) {
  if (handles_packed_parameters(kind)) return false;
  return kind.rfind("quantized::", 0) == 0 || kind == "aten::quantize_per_tensor" || kind == "aten::quantized_lstm" ||
         kind == "aten::quantized_gru";
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

// The float form of one int8 node, inserted before it; null when there is none.
class FloatForm {
 public:
  explicit FloatForm(torchscript::GraphRewriter& rewriter) : rewriter_(rewriter) {}

  jit::Value* of(jit::Node* n) {
    const std::string kind = n->kind().toQualString();
    if (kind == "aten::quantize_per_tensor") return n->input(0);
    if (kind == "quantized::linear" || kind == "quantized::linear_dynamic") return linear(n);
    if (kind == "quantized::linear_relu" || kind == "quantized::linear_relu_dynamic") return relu(n, linear(n));
    if (kind == "quantized::linear_dynamic_fp16") return linear(n, "quantized::linear_unpack_fp16");
    if (kind == "quantized::conv2d") return conv2d(n);
    if (kind == "quantized::conv2d_relu") return relu(n, conv2d(n));
    if (kind == "quantized::add") return call(n, "aten::add", {n->input(0), n->input(1)});
    if (kind == "quantized::add_relu") return relu(n, call(n, "aten::add", {n->input(0), n->input(1)}));
    if (kind == "quantized::mul") return call(n, "aten::mul", {n->input(0), n->input(1)});
    if (kind == "quantized::mul_relu") return relu(n, call(n, "aten::mul", {n->input(0), n->input(1)}));
    if (kind == "quantized::cat") return call(n, "aten::cat", {n->input(0), n->input(1)});
    return nullptr;
  }

 private:
  jit::Value* call(jit::Node* before, const char* op, const std::vector<jit::NamedValue>& args) {
    return rewriter_.insert_call(before, op, args);
  }

  jit::Value* relu(jit::Node* before, jit::Value* x) { return x ? call(before, "aten::relu", {x}) : nullptr; }

  // (weight, bias) of packed parameters, the weight dequantized (an fp16 weight: made float).
  std::pair<jit::Value*, jit::Value*> unpacked(jit::Node* n, const char* unpack) {
    std::vector<jit::Value*> parts = rewriter_.unpack(n, call(n, unpack, {n->input(1)}));
    return {call(n, "aten::dequantize", {parts.at(0)}), parts.at(1)};
  }

  jit::Value* linear(jit::Node* n, const char* unpack = "quantized::linear_unpack") {
    auto [weight, bias] = unpacked(n, unpack);
    return call(n, "aten::linear", {n->input(0), weight, bias});
  }

  jit::Value* conv2d(jit::Node* n) {
    auto [weight, bias] = unpacked(n, "quantized::conv2d_unpack");
    jit::Value* packed = n->input(1);
    return call(n, "aten::conv2d",
                {n->input(0), weight, bias, call(n, "quantized::conv2d_stride", {packed}),
                 call(n, "quantized::conv2d_padding", {packed}), call(n, "quantized::conv2d_dilation", {packed}),
                 call(n, "quantized::conv2d_groups", {packed})});
  }

  torchscript::GraphRewriter& rewriter_;
};

}  // namespace

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
    jit::Value* replacement = n->outputs().size() == 1 ? float_form.of(n) : nullptr;
    if (replacement == nullptr) return n->kind().toQualString();
    rewriter.replace_and_erase(n, replacement);
  }
  return "";
}

}  // namespace qlint::sim
