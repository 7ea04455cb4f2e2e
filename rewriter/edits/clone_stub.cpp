// clone: a quant call whose stub also quantizes another tensor gets a clone of that stub of its
// own, so each tensor calibrates its own scale. Float results are unchanged: stubs are the
// identity in float.
#include "ir/source_text.h"
#include "rewriter/edits/edit_kind.h"
#include "rewriter/source_suggestions.h"

namespace qlint::rewriter {

namespace {

// Whether another node of the model stands for the same Python call.
bool runs_more_than_once(const ir::Model& model, const ir::Node& call) {
  if (!call.loc.known()) return false;
  bool again = false;
  for (const auto& fn : model.functions)
    ir::for_each_node(fn->body, [&](const ir::Node& n) {
      again = again || (&n != &call && n.kind == call.kind && n.loc == call.loc);
    });
  return again;
}

class CloneStub final : public EditKind {
 public:
  std::string test_name(const Edit&) const override { return "clone"; }

  void apply(const ir::Model&, const Edit& edit, ir::GraphRewriter& graph) const override {
    const ir::Node& call = *edit.node;
    const ir::Value* stub = call.inputs.empty() ? nullptr : call.inputs[0];
    const ir::Node* get = stub ? stub->producer : nullptr;
    if (get == nullptr || get->kind != "prim::GetAttr" || get->inputs.empty())
      throw ir::RewriteRefused("the stub is not read with a plain attribute access");
    graph.add_submodule_clone(edit.new_stub_owner, edit.new_stub, edit.template_stub);
    ir::GraphValue clone = graph.insert_get_attr(call, graph.value_of(*get->inputs[0]), edit.new_stub);
    graph.replace_input(call, 0, clone);
  }

  // The call's range is `self.quant` (TorchScript) or `self.quant(x)` (FX): rename the stub.
  // A call the graph holds several times (a loop over a ModuleList, unrolled) is one line of
  // Python for every iteration: renaming it there would give every iteration the clone.
  void render_python(const ir::Model& model, const Edit& edit, SourceSuggestions& python) const override {
    if (!python.self_module(model, *edit.node)) return;
    ir::SourceLoc loc = edit.node->loc;
    if (runs_more_than_once(model, *edit.node))
      return python.note("no Python suggestion for the cloned stub at " + note_place(loc) +
                         ": the line runs once per iteration of a loop; give the loop a list of stubs "
                         "(`nn.ModuleList`) and index it like the loop, as the rewritten archive does per iteration");
    const std::string callee = "self." + edit.template_stub.substr(edit.template_stub.rfind('.') + 1);
    std::string text = ir::source_text(model, loc);
    if (text != callee && text.rfind(callee + "(", 0) != 0)
      return python.note("no Python suggestion for the cloned stub at " + note_place(loc));
    loc.end_column = loc.column + static_cast<int>(callee.size());
    python.replace(loc.file, loc, "self." + edit.new_stub);
    python.add_stub_to_init(model, loc.file, edit.template_stub, edit.new_stub, edit.new_stub_owner);
  }
};

}  // namespace

const EditKind& clone_stub_kind() {
  static const CloneStub kind;
  return kind;
}

}  // namespace qlint::rewriter
