// unroll: a `for` loop that applies one stub to a new tensor each iteration (the levels of a
// feature pyramid) becomes its iterations in sequence, so the next round gives each
// iteration's call a clone of the stub (reused-stub). Float results are unchanged: the same
// ops run in the same order.
#include "rewriter/edits/edit_kind.h"
#include "rewriter/source_suggestions.h"

namespace qlint::rewriter {

namespace {

class UnrollLoop final : public EditKind {
 public:
  std::string test_name(const Edit&) const override { return "unroll"; }

  void apply(const ir::Model&, const Edit& edit, ir::GraphRewriter& graph) const override {
    graph.unroll_loop(*edit.node, edit.trips);
  }

  // Python keeps its loop: the stubs become a list indexed like it.
  void render_python(const ir::Model&, const Edit& edit, SourceSuggestions& python) const override {
    python.note(
        "no Python suggestion for the loop at " + note_place(edit.node->loc) +
        ": give it a list of stubs (`self.quants = nn.ModuleList(QuantStub() for _ in range(" +
        std::to_string(edit.trips) +
        "))`) and apply `self.quants[i]` in iteration i; the rewritten archive runs the iterations in sequence, "
        "each with a stub of its own");
  }
};

}  // namespace

const EditKind& unroll_loop_kind() {
  static const UnrollLoop kind;
  return kind;
}

}  // namespace qlint::rewriter
