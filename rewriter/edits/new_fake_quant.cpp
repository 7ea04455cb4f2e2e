// fake-quant / fake-quant+cast / fake-quant-call: a new quant point in a traced QAT model, whose
// stubs are calibrated FakeQuantize modules and cannot be cloned as new stubs. The value goes
// through a clone of the model's own FakeQuantize module (registered on the module whose method
// holds the value, and called like the model's), starting at the scale the edit carries: exact
// for a 0/1 mask, or calibrated by --fix on the inputs. The model's disable_fake_quant,
// observers and re-calibration reach it as they reach the others, so its float mode is
// unchanged: the fix is safe (rules/support.h: new_fake_quant_fix).
// fake-quant-op...: where no module can be cloned or own the clone, an in-graph
// `aten::fake_quantize_per_tensor_affine` of the model's range instead. At the exact scale of
// a mask that changes nothing in any mode; at a calibrated one it is unsafe, since
// disable_fake_quant does not reach a graph op.
#include "ir/ops.h"
#include "ir/source_text.h"
#include "rewriter/edits/edit_kind.h"
#include "rewriter/source_suggestions.h"
#include "rules/support.h"

namespace qlint::rewriter {

namespace {

class NewFakeQuant final : public EditKind {
 public:
  std::string test_name(const Edit& edit) const override {
    const std::string name = edit.creates_stub() ? "fake-quant" : "fake-quant-op";
    if (edit.fake_quant.replaces_call) return name + "-call";
    return edit.cast_to_float ? name + "+cast" : name;
  }

  void apply(const ir::Model& model, const Edit& edit, ir::GraphRewriter& graph) const override {
    const Edit::FakeQuant& q = edit.fake_quant;
    // The rewriter calibrates the scale before it applies the edit; none means no inputs.
    if (!q.scale) throw ir::RewriteRefused("the new fake quant has no scale");
    const ir::Node& node = *edit.node;
    const auto operand = static_cast<size_t>(edit.operand);
    ir::GraphValue value = graph.input_of(node, operand);
    if (edit.cast_to_float)
      value = graph.insert_op(node, "aten::to", {value, ir::OpArg::of_int(*ir::scalar_type_code(ir::DType::Float32))});
    ir::GraphValue quantized =
        edit.creates_stub() ? call_new_module_or_op(model, edit, value, graph) : insert_op(edit, value, graph);
    if (!q.replaces_call) return graph.replace_input(node, operand, quantized);
    graph.replace_quant_call(node, quantized);
  }

  // `self.<new>(value)`, `<new>` a clone of the model's FakeQuantize at the edit's scale.
  static ir::GraphValue call_new_module(const ir::Model& model, const Edit& edit, ir::GraphValue value,
                                        ir::GraphRewriter& graph) {
    const ir::Node& node = *edit.node;
    const ir::Function* fn = model.function_of(node);
    if (fn == nullptr || fn->body.params.empty() || fn->module_path != edit.new_stub_owner)
      throw ir::RewriteRefused("the operation is not in a method of the module that would hold the new fake quant");
    const Edit::FakeQuant& q = edit.fake_quant;
    if (!graph.added_clone(edit.new_stub_owner, edit.new_stub))  // else another read of the tensor made it
      graph.add_fake_quant_clone(edit.new_stub_owner, edit.new_stub, edit.template_stub,
                                 {*q.scale, q.zero_point, q.observed_min, q.observed_max, q.quant_min, q.quant_max,
                                  q.mask, q.whole_up_to, q.whole_from});
    ir::GraphValue module = graph.insert_get_attr(node, graph.value_of(*fn->body.params[0]), edit.new_stub);
    return graph.insert_forward_call(node, module, value);
  }

  // A mask's clone may not keep 0 and 1 exact (a fused fake quant whose observer is on moves
  // its scale at every call): the graph op at scale 1 does, in every mode.
  static ir::GraphValue call_new_module_or_op(const ir::Model& model, const Edit& edit, ir::GraphValue value,
                                              ir::GraphRewriter& graph) {
    try {
      return call_new_module(model, edit, value, graph);
    } catch (const ir::RewriteRefused&) {
      if (!edit.fake_quant.mask) throw;
      return insert_op(edit, value, graph);
    }
  }

  static ir::GraphValue insert_op(const Edit& edit, ir::GraphValue value, ir::GraphRewriter& graph) {
    const Edit::FakeQuant& q = edit.fake_quant;
    return graph.insert_op(*edit.node, "aten::fake_quantize_per_tensor_affine",
                           {value, ir::OpArg::of_float(*q.scale), ir::OpArg::of_int(q.zero_point),
                            ir::OpArg::of_int(q.quant_min), ir::OpArg::of_int(q.quant_max)});
  }

  // A trace records lines, not expressions, and the Python model would get a QuantStub (which
  // prepare_qat equips with a FakeQuantize), not this op.
  void render_python(const ir::Model&, const Edit& edit, SourceSuggestions& python) const override {
    // A traced call, or the list `torch.stack` joins, has no location of its own: then its reader's
    // (public round 27: a loop the trace unrolled 19 times gave 19 notes, one per copy's value),
    // else the value, or the new fake quant, names the place.
    const std::string value = ir::display_name(edit.node->inputs.at(static_cast<size_t>(edit.operand)));
    const ir::SourceLoc loc = rules::best_location(*edit.node);
    const std::string place = loc.known()     ? "at " + note_place(loc)
                              : value.empty() ? "`self." + edit.new_stub + "`"
                                              : "on `" + value + "`";
    const std::string& module = edit.fake_quant.output_of_module;
    python.note("no Python suggestion for the new fake quant " + place +
                ": the model was traced; in the Python model, " +
                (!module.empty() ? "call a separate instance of `self." + module + "` for this tensor"
                                 : std::string("give the value a QuantStub of its own")) +
                " and run QAT again");
  }
};

}  // namespace

const EditKind& new_fake_quant_kind() {
  static const NewFakeQuant kind;
  return kind;
}

}  // namespace qlint::rewriter
