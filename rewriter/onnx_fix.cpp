#include "rewriter/onnx_fix.h"

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "analysis/facts.h"
#include "ir/input_file.h"
#include "ir/onnx/importer.h"
#include "ir/ops.h"
#include "rewriter/file_output.h"
#include "rules/registry.h"

namespace qlint::onnx {

namespace {

namespace pb = ::onnx;
using rewriter::FixError;

// Ops that pass a tensor's values on, rearranged or in part: a comparison reached through them
// from a DequantizeLinear can read the same view of the QuantizeLinear's float input.
const std::set<std::string>& view_ops() {
  static const std::set<std::string> ops = {"Gather",  "Slice",     "Unsqueeze", "Squeeze", "Reshape",
                                            "Flatten", "Transpose", "Identity",  "Expand"};
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
    for (const auto& t : graph_.initializer()) names_.insert(t.name());
    for (const auto& in : graph_.input()) names_.insert(in.name());
    for (const auto& node : graph_.node()) {
      names_.insert(node.name());
      for (const auto& out : node.output()) names_.insert(out);
    }
  }

  // The comparison `name` reads, on its operand `operand`, the float input of the QuantizeLinear
  // its value came through. False when that operand does not come from a QDQ pair through views.
  bool compare_float_input(const std::string& name, int operand) {
    const int at = index_of(name);
    if (at < 0 || operand >= graph_.node(at).input_size()) return false;
    std::vector<int> chain;  // the views between the DequantizeLinear and the comparison, outermost first
    std::string value = graph_.node(at).input(operand);
    for (int depth = 0; depth < 64; ++depth) {
      const int producer = producer_of(value);
      if (producer < 0) return false;
      const pb::NodeProto& p = graph_.node(producer);
      if (p.op_type() == "DequantizeLinear") {
        const int quantize = p.input_size() > 0 ? producer_of(p.input(0)) : -1;
        if (quantize < 0 || graph_.node(quantize).op_type() != "QuantizeLinear") return false;
        std::string from = graph_.node(quantize).input(0);
        std::vector<pb::NodeProto> copies;
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
          pb::NodeProto copy = graph_.node(*it);
          copy.set_name(fresh(copy.name().empty() ? copy.op_type() : copy.name() + "_float"));
          copy.set_input(0, from);
          for (int o = 0; o < copy.output_size(); ++o) copy.set_output(o, fresh(copy.output(o) + "_float"));
          from = copy.output(0);
          copies.push_back(std::move(copy));
        }
        graph_.mutable_node(at)->set_input(operand, from);
        insert_before(at, copies);
        return true;
      }
      if (!view_ops().count(p.op_type()) || p.input_size() == 0 || p.output_size() != 1) return false;
      chain.push_back(producer);
      value = p.input(0);
    }
    return false;
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

// The operand of a finding's node that its fix changes: the quantized side of a comparison, the
// unquantized 0/1 mask of arithmetic. -1 when the finding has no ONNX fix.
int operand_to_fix(const analysis::Facts& facts, const Diagnostic& d) {
  if (d.node == nullptr || onnx_name(d.node) == nullptr) return -1;
  for (size_t i = 0; i < d.node->inputs.size() && i < 2; ++i) {
    const ir::Value* v = d.node->inputs[i];
    if (d.rule == "eq-nonzero-const" && facts.quantized(v)) return static_cast<int>(i);
    if (d.rule == "unquantized-operand" && !facts.quantized(v) && zero_one_mask(facts, v)) return static_cast<int>(i);
  }
  return -1;
}

struct Round {
  std::shared_ptr<ir::Model> model;
  std::unique_ptr<analysis::Facts> facts;
  std::vector<Diagnostic> found;
};

Round check(const pb::ModelProto& proto, const std::string& path, const rewriter::FixOptions& options) {
  Round r;
  try {
    r.model = std::make_shared<ir::Model>(import_onnx_proto(proto, path));
  } catch (const ir::ImportError& e) {
    throw FixError(path + ": " + e.what());
  }
  r.facts = std::make_unique<analysis::Facts>(analysis::Facts::compute(*r.model, options.stubs));
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
    const int operand = operand_to_fix(facts, d);
    if (operand < 0) continue;
    const std::string node = onnx_name(d.node)->s;
    if (!done.insert(node + "#" + std::to_string(operand)).second) continue;
    rewriter::AppliedFix fix{d.rule, "", d.loc, d.function ? d.function->name : "", {}, d.rule + "@" + node};
    if (d.rule == "eq-nonzero-const") {
      if (!editor.compare_float_input(node, operand)) continue;
      fix.description =
          "compare the float input of the QuantizeLinear (before the QDQ pair), through copies of the "
          "views between, in node `" +
          node + "`";
    } else {
      std::string value = editor.quantize_operand(node, operand);
      if (value.empty()) continue;
      fix.description = "give the 0/1 mask a QDQ pair of its own before node `" + node + "`";
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
  try {
    ir::check_regular_file(path, std::min<uint64_t>(ir::limits().archive_bytes, INT32_MAX), "archive-bytes");
  } catch (const ir::ImportError& e) {
    throw FixError(path + ": " + e.what());
  }
  std::ifstream in(path, std::ios::binary);
  pb::ModelProto proto;
  if (!in || !proto.ParseFromIstream(&in)) throw FixError(path + ": is not an ONNX model; nothing was written");
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
  for (int i = 0; i < options.max_rounds; ++i) {
    if (!apply_round(proto, round, result.applied)) break;
    round = check(proto, path, options);  // the edited model, checked by ONNX's checker again
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
