// frozen-by-trace: a tensor the trace recorded as a constant of the archive, read by the model's
// ops. torch.jit.trace follows tensors only through the ops it records; a value the traced code
// computed outside them (`.data`, `.numpy()`, `.tolist()`, `.item()`) or a tensor attribute that
// is no buffer is written into the archive with the example input's values, so every input gets
// the example's indices or scores there: the deployed model is wrong, and so is any comparison of
// its quantized and float runs, which both read the same frozen values.
#include <algorithm>
#include <functional>
#include <numeric>
#include <string>

#include "ir/schema.h"
#include "rules/registry.h"
#include "rules/support.h"

namespace qlint::rules {

namespace {

// A tensor constant of two or more dimensions: what a trace writes for a batch of values it could
// not follow (a topk's indices per example, each example's scores). Scalars and 1-D constants are
// what traced code writes for its literals (`x * 0.5`, `torch.tensor([1.0, 2.0])`); a TorchScript
// model's weights and buffers are attributes, not constants.
const ir::Attr* frozen_tensor(const ir::Node& node) {
  if (node.kind != "prim::Constant" || node.outputs.size() != 1 || node.outputs[0]->users.empty()) return nullptr;
  // An ONNX model's initializers and Constant nodes are its weights and tables.
  if (node.attr("onnx_tensor") != nullptr) return nullptr;
  const ir::Attr* value = node.attr("value");
  if (value == nullptr || value->kind != ir::Attr::Kind::Tensor || value->ints.size() < 2) return nullptr;
  const int64_t elements = std::accumulate(value->ints.begin(), value->ints.end(), int64_t{1}, std::multiplies<>());
  return elements >= 2 ? value : nullptr;
}

std::string shape_text(const ir::Attr& tensor) {
  std::string text;
  for (int64_t size : tensor.ints) text += (text.empty() ? "" : "x") + std::to_string(size);
  return text;
}

// Whether a constant is a layer's weight or bias (`aten::linear`'s `weight`): a model that
// torch.jit.freeze inlined, whose attributes are all constants now, none of them a trace's.
bool is_weight(const ir::Value& constant) {
  return std::any_of(constant.users.begin(), constant.users.end(), [&](const ir::Node* user) {
    return ir::named_operand(*user, "weight") == &constant || ir::named_operand(*user, "bias") == &constant;
  });
}

std::vector<Diagnostic> check(const analysis::Facts& facts) {
  std::vector<Diagnostic> out;
  // C++ code has no trace; a frozen module's constants are its weights and tables.
  if (facts.model().language != ir::Language::Python) return out;
  struct Frozen {
    const ir::Function* fn;
    const ir::Node* node;
    const ir::Attr* tensor;
  };
  std::vector<Frozen> frozen;
  bool inlined_weights = false;
  for_each_model_node(facts.model(), [&](const ir::Function& fn, const ir::Node& node) {
    const ir::Attr* tensor = frozen_tensor(node);
    if (tensor == nullptr) return;
    frozen.push_back({&fn, &node, tensor});
    inlined_weights = inlined_weights || is_weight(*node.outputs[0]);
  });
  if (inlined_weights) return out;
  for (const auto& [fn, node, tensor] : frozen) {
    out.push_back(make_diagnostic(
        frozen_by_trace_rule(), *fn, *node,
        "the archive holds a " + shape_text(*tensor) + " " + ir::dtype_name(tensor->dtype) +
            " tensor that the trace recorded as a constant, read here: every input gets the example input's "
            "values in its place (a value computed with `.data`, `.numpy()`, `.tolist()` or `.item()` in traced "
            "code leaves the trace, which keeps what it held for the example), and qlint's simulation reads the "
            "same values in its float and quantized runs; compute it with tensor operations the trace records, "
            "or, if it is a fixed table of the model, register it as a buffer"));
  }
  return out;
}

}  // namespace

const Rule& frozen_by_trace_rule() {
  static const Rule rule = [] {
    Rule r;
    r.id = "frozen-by-trace";
    r.summary = "a batch of values the trace froze into the archive as a constant";
    r.severity = Severity::Warning;
    r.check = check;
    r.doc.what =
        "A tensor constant of two or more dimensions in a traced model's graph, read by its operations. "
        "torch.jit.trace records only the tensor operations it sees: a value the traced code computed outside "
        "them (through `.data`, `.numpy()`, `.tolist()` or `.item()`), or a tensor attribute that is no buffer, "
        "is written into the archive as a constant holding its values for the example input.";
    r.doc.why =
        "Every input then gets the example's values there: the sampled points, the top-k indices or the scores "
        "of the example batch, whatever the input. The deployed model is wrong on all other inputs, and a "
        "simulation compares two runs that read the same frozen values, so its figures (\"all agree\", an "
        "infinite SQNR) say nothing of the real model (public model code: a farthest-point sampling whose "
        "indices went through `.data`, a beam search's `.data.topk`).";
    r.doc.example =
        "    idx = farthest_point_sample(xyz, 512)\n"
        "    idx = idx.data                       # leaves the trace: the archive keeps the example's indices\n"
        "    centres = index_points(xyz, idx)";
    r.doc.fix =
        "Compute the value with tensor operations the trace records, without `.data`, `.numpy()`, `.tolist()` "
        "or `.item()`:\n"
        "    idx = farthest_point_sample(xyz, 512)\n"
        "    centres = index_points(xyz, idx)\n"
        "or, for a fixed table of the model, register it as a buffer (`self.register_buffer(\"table\", t)`), "
        "which the archive keeps as an attribute; or script the function that computes it.";
    r.doc.fix_safety = "No automatic fix: the archive has lost how the value was computed; export the model again.";
    return r;
  }();
  return rule;
}

}  // namespace qlint::rules
