// compare-with-zero (unsafe): `x == c` becomes `logical_not(x == 0)`, `x != c` becomes
// `x == 0`. Zero survives quantization exactly; the float result is the same only while x holds
// nothing but 0 and c, so rules offer it only when the simulation saw just those.
#include "ir/source_text.h"
#include "rewriter/edits/edit_kind.h"
#include "rewriter/source_suggestions.h"

namespace qlint::rewriter {

namespace {

class CompareWithZero final : public EditKind {
 public:
  std::string test_name(const Edit&) const override { return "compare-with-zero"; }

  void apply(const ir::Model&, const Edit& edit, ir::GraphRewriter& graph) const override {
    const ir::Node& comparison = *edit.node;
    ir::GraphValue x = graph.input_of(comparison, static_cast<size_t>(edit.operand));
    ir::GraphValue result = graph.insert_op(comparison, "aten::eq", {x, ir::OpArg::of_int(0)});
    if (comparison.kind == "aten::eq") result = graph.insert_op(comparison, "aten::logical_not", {result});
    graph.replace_uses(comparison, result);
    graph.erase_when_unused(comparison);
  }

  void render_python(const ir::Model& model, const Edit& edit, SourceSuggestions& python) const override {
    auto operand_loc = ir::operand_location(model, *edit.node, static_cast<size_t>(edit.operand));
    if (!operand_loc || !edit.node->loc.known())
      return python.note("no Python suggestion for the comparison at " + note_place(edit.node->loc));
    std::string x = ir::source_text(model, *operand_loc);
    bool is_eq = edit.node->kind == "aten::eq";
    python.replace(edit.node->loc.file, edit.node->loc,
                   is_eq ? "torch.logical_not(" + x + " == 0)" : "(" + x + " == 0)");
  }
};

}  // namespace

const EditKind& compare_with_zero_kind() {
  static const CompareWithZero kind;
  return kind;
}

}  // namespace qlint::rewriter
