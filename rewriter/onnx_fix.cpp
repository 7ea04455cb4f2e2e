#include "rewriter/onnx_fix.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "analysis/facts.h"
#include "ir/display.h"
#include "ir/onnx/importer.h"
#include "ir/ops.h"
#include "rewriter/file_output.h"
#include "rules/registry.h"

namespace qlint::onnx {

namespace {

namespace pb = ::onnx;
using rewriter::FixError;

// Ops a float twin is computed through (a copy of the op on the float values): views, which pass
// their first operand's values on (the others are indices and shapes), and joins and casts, whose
// every operand must then have a twin or be a constant: a copy that met a quantized operand would
// be float data joined with quantized data, a hazard of its own. Arithmetic only on one computed
// operand (arithmetic_ops): the twin of `q + DQ(Q(y))` would add the float `y` to values computed
// from quantized ones, which the accelerator cannot do either.
const std::set<std::string>& view_ops() {
  static const std::set<std::string> ops = {"Gather",  "Slice",     "Unsqueeze", "Squeeze", "Reshape",
                                            "Flatten", "Transpose", "Identity",  "Expand"};
  return ops;
}

const std::set<std::string>& join_ops() {
  static const std::set<std::string> ops = {"Concat", "Cast"};
  return ops;
}

// Elementwise arithmetic, copied only with one operand that has a twin and constants for the
// others (`(1.0 - m).to(torch.bool)`, `relu(x)`): its twin is then the same arithmetic on float.
const std::set<std::string>& arithmetic_ops() {
  static const std::set<std::string> ops = {"Add", "Sub", "Mul", "Div", "Neg", "Abs", "Relu", "Sigmoid", "Clip"};
  return ops;
}

bool keeps_tensors_outside(const pb::GraphProto& g) {
  auto outside = [](const pb::TensorProto& t) { return t.data_location() == pb::TensorProto::EXTERNAL; };
  for (const auto& t : g.initializer())
    if (outside(t)) return true;
  for (const auto& node : g.node())
    for (const auto& a : node.attribute())
      if ((a.has_t() && outside(a.t())) || (a.has_g() && keeps_tensors_outside(a.g()))) return true;
  return false;
}

// The graph edits of one round, on the main graph (the importer names the nodes of subgraphs too,
// but their values are scoped: no edit reaches into them).
class Editor {
 public:
  explicit Editor(pb::GraphProto& graph) : graph_(graph) {
    for (const auto& t : graph_.initializer()) initializers_.insert(t.name());
    names_ = initializers_;
    for (const auto& in : graph_.input()) names_.insert(in.name());
    for (const auto& node : graph_.node()) {
      names_.insert(node.name());
      for (const auto& out : node.output()) names_.insert(out);
    }
  }

  // Operand `operand` of node `name` (a comparison, a bool cast) reads its float twin: the value
  // computed with the nearest QuantizeLinear/DequantizeLinear pair on each path taken out, through
  // copies of the ops between (view_ops, join_ops, arithmetic_ops). False when it has none.
  bool read_float_twin(const std::string& name, int operand) {
    const int at = index_of(name);
    if (at < 0 || operand >= graph_.node(at).input_size()) return false;
    std::vector<pb::NodeProto> copies;
    std::map<std::string, std::string> twins;
    auto twin = float_twin(graph_.node(at).input(operand), copies, twins, 0);
    if (!twin) return false;
    graph_.mutable_node(at)->set_input(operand, *twin);
    insert_before(at, copies);
    return true;
  }

  // Operand `operand` of node `name` goes through a new QDQ pair of scale 1 and zero point 0 (int8),
  // where a 0/1 mask is exact. Returns the pair's value name, or "" when the node is not there.
  std::string quantize_operand(const std::string& name, int operand) {
    const int at = index_of(name);
    if (at < 0 || operand >= graph_.node(at).input_size()) return "";
    const std::string value = graph_.node(at).input(operand);
    const std::string scale = fresh("qlint_mask_scale"), zero_point = fresh("qlint_mask_zero_point");
    pb::TensorProto* s = graph_.add_initializer();
    s->set_name(scale);
    s->set_data_type(pb::TensorProto::FLOAT);
    s->add_float_data(1.0f);
    pb::TensorProto* z = graph_.add_initializer();
    z->set_name(zero_point);
    z->set_data_type(pb::TensorProto::INT8);
    z->add_int32_data(0);
    pb::NodeProto q, dq;
    q.set_op_type("QuantizeLinear");
    q.set_name(fresh(value + "_qlint_QuantizeLinear"));
    q.add_input(value);
    q.add_input(scale);
    q.add_input(zero_point);
    q.add_output(fresh(value + "_qlint_quantized"));
    dq.set_op_type("DequantizeLinear");
    dq.set_name(fresh(value + "_qlint_DequantizeLinear"));
    dq.add_input(q.output(0));
    dq.add_input(scale);
    dq.add_input(zero_point);
    dq.add_output(fresh(value + "_qlint_dequantized"));
    graph_.mutable_node(at)->set_input(operand, dq.output(0));
    const std::string out = dq.output(0);
    insert_before(at, {q, dq});
    return out;
  }

 private:
  // The float twin of `value`, or nullopt when it has none: the input of the QuantizeLinear of a
  // DequantizeLinear(QuantizeLinear(x)), else a copy of its op reading its operands' twins (a view's
  // first operand; every operand of a join or arithmetic that is no constant), appended to
  // `copies` in order. `twins` remembers the twins made, so that a value reached twice is copied
  // once. Nullopt, with nothing appended, when an operand that needs a twin has none.
  std::optional<std::string> float_twin(const std::string& value, std::vector<pb::NodeProto>& copies,
                                        std::map<std::string, std::string>& twins, int depth) {
    if (auto it = twins.find(value); it != twins.end()) return it->second;
    const int producer = producer_of(value);
    if (producer < 0 || depth > 32 || copies.size() > 64) return std::nullopt;
    const pb::NodeProto& p = graph_.node(producer);
    if (p.op_type() == "DequantizeLinear" && p.input_size() > 0) {
      const int quantize = producer_of(p.input(0));
      if (quantize < 0 || graph_.node(quantize).op_type() != "QuantizeLinear") return std::nullopt;
      return twins[value] = graph_.node(quantize).input(0);
    }
    const bool view = view_ops().count(p.op_type()) > 0, arithmetic = arithmetic_ops().count(p.op_type()) > 0;
    if ((!view && !arithmetic && !join_ops().count(p.op_type())) || p.output_size() != 1 || p.input_size() == 0)
      return std::nullopt;
    if (arithmetic) {
      int computed = 0;
      for (const auto& in : p.input()) computed += !in.empty() && !is_constant(in);
      if (computed != 1) return std::nullopt;
    }
    pb::NodeProto copy = p;
    const size_t copies_before = copies.size();
    const auto twins_before = twins;
    bool any = false;
    for (int i = 0; i < (view ? 1 : copy.input_size()); ++i) {
      if (copy.input(i).empty()) continue;
      if (auto t = float_twin(copy.input(i), copies, twins, depth + 1)) {
        copy.set_input(i, *t);
        any = true;
      } else if (view || !is_constant(copy.input(i))) {
        copies.resize(copies_before);  // the operands' copies serve nothing now
        twins = twins_before;
        return std::nullopt;
      }
    }
    if (!any) return std::nullopt;
    copy.set_name(fresh(p.name().empty() ? p.op_type() + "_float" : p.name() + "_float"));
    copy.set_output(0, fresh(p.output(0) + "_float"));
    copies.push_back(copy);
    return twins[value] = copy.output(0);
  }

  // An initializer or a Constant node's output: a weight, a threshold, a scale.
  bool is_constant(const std::string& value) const {
    if (initializers_.count(value)) return true;
    const int producer = producer_of(value);
    return producer >= 0 && graph_.node(producer).op_type() == "Constant";
  }

  int index_of(const std::string& name) const {
    for (int i = 0; i < graph_.node_size(); ++i)
      if (graph_.node(i).name() == name) return i;
    return -1;
  }

  int producer_of(const std::string& value) const {
    for (int i = 0; i < graph_.node_size(); ++i)
      for (const auto& out : graph_.node(i).output())
        if (out == value) return i;
    return -1;
  }

  std::string fresh(const std::string& base) {
    std::string name = base;
    for (int n = 1; names_.count(name); ++n) name = base + "_" + std::to_string(n);
    names_.insert(name);
    return name;
  }

  // ONNX wants nodes in topological order: the new nodes read only what the node at `at` could.
  void insert_before(int at, const std::vector<pb::NodeProto>& nodes) {
    auto* all = graph_.mutable_node();
    for (size_t k = 0; k < nodes.size(); ++k) {
      *all->Add() = nodes[k];  // appended, then moved down to its place
      for (int i = all->size() - 1; i > at + static_cast<int>(k); --i) all->SwapElements(i, i - 1);
    }
  }

  pb::GraphProto& graph_;
  std::set<std::string> initializers_;  // the graph's as it was: a float twin reads only those
  std::set<std::string> names_;
};

const ir::Attr* onnx_name(const ir::Node* n) {
  const ir::Attr* a = n ? n->attr("onnx_node") : nullptr;
  return a != nullptr && a->kind == ir::Attr::Kind::Str && !a->s.empty() ? a : nullptr;
}

// Whether `v` holds only 0 and 1: a bool cast to a number, through views.
bool zero_one_mask(const analysis::Facts& facts, const ir::Value* v) {
  for (int depth = 0; v != nullptr && v->producer != nullptr && depth < 64; ++depth) {
    const ir::Node& p = *v->producer;
    if (ir::is_cast(p) && !p.inputs.empty()) return facts.dtype(p.inputs[0]) == ir::DType::Bool;
    if (p.inputs.empty() || !ir::is_view_op(p)) return false;
    v = p.inputs[0];
  }
  return false;
}

// Where a finding's fix edits the graph: the node (its ONNX name) and its operand that changes.
struct Target {
  std::string node;
  int operand = -1;
  bool mask = false;  // a QDQ pair for a 0/1 mask; else the operand reads its float twin
};

// The quantized side of a comparison or bool cast reads its float twin (eq-nonzero-const at the
// comparison; shared-stub-mask at the stub, whose mask is made where its evidence node is); the
// unquantized 0/1 mask of arithmetic gets a QDQ pair (unquantized-operand). Nullopt when the
// finding has no ONNX fix.
std::optional<Target> target_of(const analysis::Facts& facts, const Diagnostic& d) {
  const bool mask_use = d.rule == "shared-stub-mask";
  const ir::Node* node = mask_use ? d.evidence_node : d.node;
  if (node == nullptr || onnx_name(node) == nullptr) return std::nullopt;
  for (size_t i = 0; i < node->inputs.size() && i < 2; ++i) {
    const ir::Value* v = node->inputs[i];
    if ((d.rule == "eq-nonzero-const" || mask_use) && facts.quantized(v))
      return Target{onnx_name(node)->s, static_cast<int>(i), false};
    if (d.rule == "unquantized-operand" && !facts.quantized(v) && zero_one_mask(facts, v))
      return Target{onnx_name(node)->s, static_cast<int>(i), true};
  }
  return std::nullopt;
}

// The findings of `after` that `before` does not have (by rule and place).
std::vector<const Diagnostic*> new_findings(const std::vector<Diagnostic>& before,
                                            const std::vector<Diagnostic>& after) {
  std::multiset<std::string> had;
  auto key = [](const Diagnostic& d) { return d.rule + "@" + ir::display_location(d.loc); };
  for (const auto& d : before) had.insert(key(d));
  std::vector<const Diagnostic*> out;
  for (const auto& d : after) {
    auto it = had.find(key(d));
    if (it == had.end())
      out.push_back(&d);
    else
      had.erase(it);
  }
  return out;
}

std::string said(const Diagnostic& d) { return d.rule + " at " + ir::display_location(d.loc); }

std::string said_fix(const rewriter::AppliedFix& fix) { return fix.rule + " at " + ir::display_location(fix.loc); }

struct Round {
  std::shared_ptr<ir::Model> model;
  std::shared_ptr<analysis::Facts> facts;
  std::vector<Diagnostic> found;
};

Round check(const pb::ModelProto& proto, const std::string& path, const rewriter::FixOptions& options) {
  Round r;
  try {
    r.model = std::make_shared<ir::Model>(import_onnx_proto(proto, path));
  } catch (const ir::ImportError& e) {
    throw FixError(path + ": " + e.what());
  }
  r.facts = std::make_shared<analysis::Facts>(analysis::Facts::compute(*r.model, options.stubs));
  std::vector<Diagnostic> found = rules::run_all(*r.facts);
  r.found = options.filter ? options.filter(*r.model, std::move(found)) : std::move(found);
  return r;
}

// Applies one fix per finding that has one; the applied ones are appended to `applied`.
bool apply_round(pb::ModelProto& proto, const Round& round, std::vector<rewriter::AppliedFix>& applied) {
  const analysis::Facts& facts = *round.facts;
  Editor editor(*proto.mutable_graph());
  bool changed = false;
  std::set<std::string> done;  // one edit per node and operand, whatever finds it twice
  for (const auto& d : round.found) {
    const auto target = target_of(facts, d);
    if (!target || !done.insert(target->node + "#" + std::to_string(target->operand)).second) continue;
    rewriter::AppliedFix fix{d.rule, "", d.loc, d.function ? d.function->name : "", {}, d.rule + "@" + target->node};
    if (!target->mask) {
      if (!editor.read_float_twin(target->node, target->operand)) continue;
      fix.description = std::string(d.rule == "shared-stub-mask" ? "make the mask" : "compare") +
                        " from the float value before the QDQ pair, through copies of the ops between, in node `" +
                        target->node + "`";
    } else {
      std::string value = editor.quantize_operand(target->node, target->operand);
      if (value.empty()) continue;
      fix.description = "give the 0/1 mask a QDQ pair of its own before node `" + target->node + "`";
      fix.scales.push_back({value, "", 1.0, 0, -128, 127, "exact for a 0/1 mask"});
    }
    applied.push_back(std::move(fix));
    changed = true;
  }
  return changed;
}

void write_model(const pb::ModelProto& proto, const std::string& path, const rewriter::FixOptions& options) {
  const std::string output = options.output.empty() ? path : options.output;
  rewriter::WriteTarget target = rewriter::resolve_write_target(output, path, !options.output.empty());
  rewriter::remove_stale_temps(target.path);
  rewriter::TempDir temp(target.path);
  const std::string file = (std::filesystem::path(temp.path) / std::filesystem::path(target.path).filename()).string();
  {
    std::ofstream out(file, std::ios::binary);
    if (!proto.SerializeToOstream(&out) || !out.flush())
      throw FixError(target.path + ": cannot write the fixed model: " +
                     (rewriter::no_space(temp.path) ? "no space left on device" : "write failed") +
                     "; nothing was written");
  }
  rewriter::replace_with(file, target, "the fixed model");
}

pb::ModelProto read_model(const std::string& path) {
  pb::ModelProto proto;
  try {
    read_onnx_file(path, proto);
  } catch (const ir::ImportError& e) {
    throw FixError(path + ": " + e.what());
  }
  if (keeps_tensors_outside(proto.graph()))
    throw FixError(path +
                   ": keeps tensors in files beside it, which qlint cannot yet rewrite with the model; "
                   "nothing was written");
  return proto;
}

}  // namespace

rewriter::FixResult fix_onnx(const std::string& path, const rewriter::FixOptions& options) {
  pb::ModelProto proto = read_model(path);
  rewriter::FixResult result;
  result.verification_note =
      "Not verified by simulation: qlint does not run ONNX models yet. The fixed model passes ONNX's checker, and "
      "every edit keeps float results by construction (a QuantizeLinear/DequantizeLinear pair is the identity in "
      "float).";
  Round round = check(proto, path, options);
  result.found = static_cast<int>(round.found.size());
  const Round original = round;
  // The last state no worse than the original: no finding it did not have.
  pb::ModelProto kept_proto = proto;
  Round kept = round;
  size_t kept_applied = 0;
  for (int i = 0; i < options.max_rounds; ++i) {
    pb::ModelProto before = proto;
    std::vector<rewriter::AppliedFix> applied;
    if (!apply_round(proto, round, applied)) break;
    Round next = check(proto, path, options);  // the edited model, checked by ONNX's checker again
    // A round that brings a finding the original did not have and no edit can fix is undone; one
    // whose new findings have fixes (a mask made from the float value, then quantized exactly)
    // goes on to the next round.
    const auto added = new_findings(original.found, next.found);
    auto unfixable =
        std::find_if(added.begin(), added.end(), [&](const Diagnostic* d) { return !target_of(*next.facts, *d); });
    if (unfixable != added.end()) {
      proto = std::move(before);
      for (const auto& fix : applied)
        result.skipped.push_back(said_fix(fix) + ": the edit would bring " + said(**unfixable));
      break;
    }
    result.applied.insert(result.applied.end(), applied.begin(), applied.end());
    round = std::move(next);
    if (added.empty()) {
      kept_proto = proto;
      kept = round;
      kept_applied = result.applied.size();
    }
  }
  // Never worse: the model as the last round with no new finding left it.
  if (const auto added = new_findings(original.found, round.found); !added.empty()) {
    for (size_t i = kept_applied; i < result.applied.size(); ++i)
      result.skipped.push_back(said_fix(result.applied[i]) + ": the edits would leave " + said(*added.front()));
    result.applied.resize(kept_applied);
    proto = std::move(kept_proto);
    round = std::move(kept);
  }
  result.remaining = round.found;
  result.final_model = round.model;
  if (!result.applied.empty()) {
    result.rewritten_functions.insert("forward");
    result.python_notes.push_back(
        "no Python suggestion: an ONNX model records source lines, not expressions; make the change each finding "
        "describes in the Python model and export it again");
  }
  if (options.write && !result.applied.empty()) {
    write_model(proto, path, options);
    result.written = true;
    result.written_to = options.output.empty() ? path : options.output;
  }
  return result;
}

}  // namespace qlint::onnx
