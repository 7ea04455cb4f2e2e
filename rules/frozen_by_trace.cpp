// frozen-by-trace: a tensor the trace recorded as a constant of the archive, read by the model's
// ops. torch.jit.trace follows tensors only through the ops it records; a value the traced code
// computed outside them (`.data`, `.numpy()`, `.tolist()`, `.item()`) or a tensor attribute that
// is no buffer is written into the archive with the example input's values, so every input gets
// the example's indices or scores there: the deployed model is wrong, and so is any comparison of
// its quantized and float runs, which both read the same frozen values.
#include <algorithm>
#include <functional>
#include <numeric>
#include <regex>
#include <string>

#include "ir/ops.h"
#include "ir/schema.h"
#include "ir/source_text.h"
#include "rules/registry.h"
#include "rules/support.h"

namespace qlint::rules {

namespace {

// Whether an op reads `v` as positions: the `index` of index_select, gather or take, or an
// element of the `indices` list of `x[idx]` (aten::index) or an in-place write through it; also
// after a cast or a view (a trace moves a constant index to the device and dtype it needs).
bool read_as_positions(const ir::Value& v, int depth = 0) {
  auto positions_of = [](const ir::Node& user, const ir::Value& operand) {
    return ir::named_operand(user, "index") == &operand || ir::named_operand(user, "indices") == &operand;
  };
  return std::any_of(v.users.begin(), v.users.end(), [&](const ir::Node* user) {
    if (positions_of(*user, v)) return true;
    const bool passes_on = ir::is_cast(*user) || ir::is_view_op(*user);
    if (passes_on && depth < 8 && user->outputs.size() == 1 && user->inputs[0] == &v)
      return read_as_positions(*user->outputs[0], depth + 1);
    if (user->kind != "prim::ListConstruct" || user->outputs.size() != 1) return false;
    const ir::Value& list = *user->outputs[0];
    return std::any_of(list.users.begin(), list.users.end(),
                       [&](const ir::Node* reader) { return positions_of(*reader, list); });
  });
}

// Whether every value of a 1-D constant is written on the line that reads it (`x[:, [0, 2]]`): a
// literal of the code, not values the trace froze.
bool spelled_on_its_line(const ir::Model& model, const ir::Node& constant, const ir::Attr& tensor) {
  if (tensor.floats.empty()) return false;
  const std::string text = ir::source_text(model, constant.loc);
  return std::all_of(tensor.floats.begin(), tensor.floats.end(), [&](double value) {
    const std::regex number("(^|[^0-9.])" + std::to_string(static_cast<int64_t>(value)) + "($|[^0-9.])");
    return std::regex_search(text, number);
  });
}

// A tensor constant that holds a batch of values the trace could not follow: of two or more
// dimensions (a topk's indices per example, each example's scores), or 1-D integer positions
// that ops index with (an NMS's picks gathered with `.item()`, public round 26's SSD), unless the
// line spells them. Scalars and other 1-D constants are what traced code writes for its literals
// (`x * 0.5`, `torch.tensor([1.0, 2.0])`); a TorchScript model's weights and buffers are
// attributes, not constants.
const ir::Attr* frozen_tensor(const ir::Model& model, const ir::Node& node) {
  if (node.kind != "prim::Constant" || node.outputs.size() != 1 || node.outputs[0]->users.empty()) return nullptr;
  // An ONNX model's initializers and Constant nodes are its weights and tables.
  if (node.attr("onnx_tensor") != nullptr) return nullptr;
  const ir::Attr* value = node.attr("value");
  if (value == nullptr || value->kind != ir::Attr::Kind::Tensor || value->ints.empty()) return nullptr;
  const int64_t elements = std::accumulate(value->ints.begin(), value->ints.end(), int64_t{1}, std::multiplies<>());
  if (elements < 2) return nullptr;
  if (value->ints.size() >= 2) return value;
  const bool positions =
      ir::is_integral(value->dtype) && read_as_positions(*node.outputs[0]) && !spelled_on_its_line(model, node, *value);
  return positions ? value : nullptr;
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

std::string frozen_positions_message(const ir::Attr& tensor) {
  return "the archive holds " + std::to_string(tensor.ints[0]) + " " + ir::dtype_name(tensor.dtype) +
         " positions that the trace recorded as a constant, read here as indices: if they depend on the input "
         "(positions collected with `.item()` or `.tolist()` in traced code, the picks of a non-maximum "
         "suppression written in Python, leave the trace, which keeps what they were for the example), every "
         "input gets the rows the example input picked, and qlint's simulation picks the same rows in its float "
         "and quantized runs: compute them with tensor operations the trace records (`torchvision.ops.nms`), or "
         "script the function that picks them; if they are a fixed choice of the model, the archive picks what the "
         "model does, but keeps them as a constant: register them as a buffer";
}

std::string frozen_values_message(const ir::Attr& tensor) {
  return "the archive holds a " + shape_text(tensor) + " " + ir::dtype_name(tensor.dtype) +
         " tensor that the trace recorded as a constant, read here: if it depends on the input (a value computed "
         "with `.data`, `.numpy()`, `.tolist()` or `.item()` in traced code leaves the trace, which keeps what it "
         "held for the example), every input gets the example input's values in its place, and qlint's simulation "
         "reads the same values in its float and quantized runs: compute it with tensor operations the trace "
         "records; if it is a fixed table of the model (anchors, priors), the archive computes what the model "
         "does, but keeps the table as a constant: register it as a buffer";
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
    const ir::Attr* tensor = frozen_tensor(facts.model(), node);
    if (tensor == nullptr) return;
    frozen.push_back({&fn, &node, tensor});
    inlined_weights = inlined_weights || is_weight(*node.outputs[0]);
  });
  if (inlined_weights) return out;
  for (const auto& [fn, node, tensor] : frozen)
    out.push_back(
        make_diagnostic(frozen_by_trace_rule(), *fn, *node,
                        tensor->ints.size() == 1 ? frozen_positions_message(*tensor) : frozen_values_message(*tensor)));
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
        "A tensor constant of two or more dimensions in a traced model's graph, read by its operations, or a "
        "1-D integer one read as indices (`x[picked]`, `index_select`, `gather`) whose values the line that "
        "reads it does not spell. "
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
