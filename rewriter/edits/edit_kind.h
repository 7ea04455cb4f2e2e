// One home per fix kind. An edit (rules/diagnostic.h) is data; its kind, implemented in
// rewriter/edits/<kind>.cpp, says everything else about it: how it changes a model's graph
// (through ir::GraphRewriter, so the file needs no LibTorch), how it reads as a change to the
// user's Python source, and how tests name it. docs/contributing.md says how to add one.
#pragma once

#include <string>

#include "ir/graph_rewriter.h"
#include "ir/ir.h"
#include "rules/diagnostic.h"

namespace qlint::rewriter {

class SourceSuggestions;

class EditKind {
 public:
  virtual ~EditKind() = default;

  // How fix fixtures name an edit of this kind ("reroot", "quantize+cast").
  virtual std::string test_name(const Edit& edit) const = 0;

  // Carries the edit out on the graph of `model`'s front end. Throws ir::RewriteRefused when it
  // does not apply to this model (the fix is then skipped, with the reason).
  virtual void apply(const ir::Model& model, const Edit& edit, ir::GraphRewriter& graph) const = 0;

  // Adds the matching change of the user's Python source to `python`, or a note saying why
  // there is none.
  virtual void render_python(const ir::Model& model, const Edit& edit, SourceSuggestions& python) const = 0;

  // The same for C++ source read by the C++ front end (`qlint cxx --fix`, Clang replacements).
  // By default there is none, with a note saying so.
  virtual void render_cxx(const ir::Model& model, const Edit& edit, SourceSuggestions& cxx) const;
};

// The implementation of an edit's kind.
const EditKind& edit_kind(Edit::Kind kind);

// Each kind's file defines one of these.
const EditKind& reroot_kind();
const EditKind& quantize_operand_kind();
const EditKind& clone_stub_kind();
const EditKind& compare_with_zero_kind();
const EditKind& new_fake_quant_kind();
const EditKind& unroll_loop_kind();

}  // namespace qlint::rewriter
