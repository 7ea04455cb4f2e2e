// fake-quant / fake-quant+cast / fake-quant-call: a new quant point in a traced QAT model, whose
// stubs are calibrated FakeQuantize modules and cannot be cloned as new ones. The value goes
// through a new `aten::fake_quantize_per_tensor_affine` of the model's own range, with the
// scale the edit carries (exact for a 0/1 mask, or calibrated by --fix on the inputs). At the
// exact scale nothing changes in any mode: a 0/1 float mask multiplies as the bool mask did.
// A calibrated one is an unsafe fix (rules/support.h: new_fake_quant_fix): the model's
// disable_fake_quant switches its FakeQuantize modules, not this op.
#include "ir/ops.h"
#include "ir/source_text.h"
#include "rewriter/edits/edit_kind.h"
#include "rewriter/source_suggestions.h"

namespace qlint::rewriter {

namespace {

class NewFakeQuant final : public EditKind {
 public:
  std::string test_name(const Edit& edit) const override {
    if (edit.fake_quant.replaces_call) return "fake-quant-call";
    return edit.cast_to_float ? "fake-quant+cast" : "fake-quant";
  }

  void apply(const ir::Model&, const Edit& edit, ir::GraphRewriter& graph) const override {
    const Edit::FakeQuant& q = edit.fake_quant;
    // The rewriter calibrates the scale before it applies the edit; none means no inputs.
    if (!q.scale) throw ir::RewriteRefused("the new fake quant has no scale");
    const ir::Node& node = *edit.node;
    const auto operand = static_cast<size_t>(edit.operand);
    ir::GraphValue value = graph.input_of(node, operand);
    if (edit.cast_to_float)
      value = graph.insert_op(node, "aten::to", {value, ir::OpArg::of_int(*ir::scalar_type_code(ir::DType::Float32))});
    ir::GraphValue quantized = graph.insert_op(node, "aten::fake_quantize_per_tensor_affine",
                                               {value, ir::OpArg::of_float(*q.scale), ir::OpArg::of_int(q.zero_point),
                                                ir::OpArg::of_int(q.quant_min), ir::OpArg::of_int(q.quant_max)});
    if (!q.replaces_call) return graph.replace_input(node, operand, quantized);
    graph.replace_uses(node, quantized);
    graph.erase_when_unused(node);
  }

  // A trace records lines, not expressions, and the Python model would get a QuantStub (which
  // prepare_qat equips with a FakeQuantize), not this op.
  void render_python(const ir::Model&, const Edit& edit, SourceSuggestions& python) const override {
    // A traced call has no location of its own: then the value names the place.
    const std::string place =
        edit.node->loc.known()
            ? "at " + note_place(edit.node->loc)
            : "on `" + ir::display_name(edit.node->inputs.at(static_cast<size_t>(edit.operand))) + "`";
    python.note("no Python suggestion for the new fake quant " + place +
                ": the model was traced; in the Python model, give the value a QuantStub of its own and run QAT "
                "again");
  }
};

}  // namespace

const EditKind& new_fake_quant_kind() {
  static const NewFakeQuant kind;
  return kind;
}

}  // namespace qlint::rewriter
