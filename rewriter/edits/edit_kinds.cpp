#include "rewriter/edits/edit_kind.h"
#include "rewriter/source_suggestions.h"

namespace qlint::rewriter {

void EditKind::render_cxx(const ir::Model&, const Edit& edit, SourceSuggestions& cxx) const {
  cxx.note("no C++ fix for the " + test_name(edit) + " rewrite at " + note_place(edit.node->loc) + " yet");
}

const EditKind& edit_kind(Edit::Kind kind) {
  switch (kind) {
    case Edit::Kind::Reroot:
      return reroot_kind();
    case Edit::Kind::QuantizeOperand:
      return quantize_operand_kind();
    case Edit::Kind::CloneStub:
      return clone_stub_kind();
    case Edit::Kind::CompareWithZero:
      return compare_with_zero_kind();
    case Edit::Kind::NewFakeQuant:
      return new_fake_quant_kind();
    case Edit::Kind::UnrollLoop:
      return unroll_loop_kind();
  }
  return reroot_kind();  // unreachable: every kind is listed above, and -Wswitch says so
}

}  // namespace qlint::rewriter
