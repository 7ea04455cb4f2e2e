// quantize / quantize+cast: `node`'s input `operand` goes through a new stub of its own (a bool
// mask cast to float first). Float results are unchanged: the stub is the identity, and a 0/1
// float mask multiplies as the bool mask did.
#include <regex>

#include "ir/source_text.h"
#include "rewriter/edits/cxx_operand.h"
#include "rewriter/edits/edit_kind.h"
#include "rewriter/source_suggestions.h"

namespace qlint::rewriter {

namespace {

// `mask[:, None]` can take `.to(...)` as it is; `a > b` needs parentheses first.
std::string as_float(const std::string& text) {
  static const std::regex simple(R"(^[A-Za-z_][\w.]*(\[[^\]]*\]|\([^)]*\))*$)");
  return (std::regex_match(text, simple) ? text : "(" + text + ")") + ".to(torch.float)";
}

// The calls the edit inlines, outermost first.
std::vector<const ir::Node*> calls_to_inline(const Edit& edit) {
  if (edit.inline_call == nullptr) return {};
  std::vector<const ir::Node*> calls{edit.inline_call};
  calls.insert(calls.end(), edit.inline_within.begin(), edit.inline_within.end());
  return calls;
}

class QuantizeOperand final : public EditKind {
 public:
  std::string test_name(const Edit& edit) const override { return edit.cast_to_float ? "quantize+cast" : "quantize"; }

  void apply(const ir::Model& model, const Edit& edit, ir::GraphRewriter& graph) const override {
    const ir::Node& consumer = *edit.node;
    const ir::Function* fn = model.function_of(edit.inline_call ? *edit.inline_call : consumer);
    if (fn == nullptr || fn->body.params.empty()) throw ir::RewriteRefused("the operation is not in a module method");
    for (const ir::Node* call : calls_to_inline(edit)) {
      const ir::Function* callee = ir::callee_of(model, *call);
      if (callee == nullptr) throw ir::RewriteRefused("the function a call to inline calls is not in the model");
      graph.inline_call(*call, *callee);
    }
    const ir::Value& self = *fn->body.params[0];
    if (self.type.kind != ir::Type::Kind::Module || self.type.name != edit.new_stub_owner)
      throw ir::RewriteRefused("the method's `self` is not the module that would hold the new stub");
    if (!graph.added_clone(edit.new_stub_owner, edit.new_stub))  // else another read of the tensor made it
      graph.add_submodule_clone(edit.new_stub_owner, edit.new_stub, edit.template_stub);
    const auto operand = static_cast<size_t>(edit.operand);
    ir::GraphValue value = graph.input_of(consumer, operand);
    if (edit.cast_to_float)
      value =
          graph.insert_op(consumer, "aten::to", {value, ir::OpArg::of_int(*ir::scalar_type_code(ir::DType::Float32))});
    ir::GraphValue stub = graph.insert_get_attr(consumer, graph.value_of(self), edit.new_stub);
    graph.replace_input(consumer, operand, graph.insert_forward_call(consumer, stub, value));
  }

  // `self.mask_quant(mask.to(torch.float))` in place of the operand, and the stub in __init__.
  void render_python(const ir::Model& model, const Edit& edit, SourceSuggestions& python) const override {
    const std::string here = "no Python suggestion for the new stub at " + note_place(edit.node->loc) + ": `";
    const ir::Function* helper = model.function_of(*edit.node);
    const std::string name = helper ? helper->name.substr(helper->name.rfind('.') + 1) : std::string("the helper");
    const bool of_a_module = helper != nullptr && helper->body.params.size() > 0 &&
                             helper->body.params[0]->type.kind == ir::Type::Kind::Module;
    if (edit.inline_call && edit.inline_call->kind == "prim::CallMethod" && of_a_module) {
      python.mark_inlined_for_one_call(edit.node->loc);
      return python.note(here + name + "` is called from several places, and one stub in it would quantize every " +
                         "call's tensor with one scale; the rewritten archive inlines its call at " +
                         note_place(edit.inline_call->loc) + " (and each other call in a round of its own) and " +
                         "quantizes there; in Python, quantize the argument at each call, with a stub per call");
    }
    if (edit.inline_call) {
      const std::vector<const ir::Node*> calls = calls_to_inline(edit);
      std::string places;
      for (size_t i = 0; i < calls.size(); ++i)
        places += (i == 0 ? "" : i + 1 == calls.size() ? " and " : ", ") + note_place(calls[i]->loc);
      return python.note(here + name +
                         (calls.back()->kind == "prim::CallMethod" ? "` is a method of a class that is no module"
                                                                   : "` is a free function") +
                         ", with no module to hold a stub; the rewritten archive inlines " +
                         (calls.size() == 1 ? "its call at " : "the calls that lead to it, at ") + places +
                         ", and quantizes there; in Python, do the same: move that code into the method, or return "
                         "the operand from the helper and quantize it in the method");
    }
    // The last call of such a method left in the archive: Python still runs it for every call,
    // as the note of the call inlined before says.
    if (python.inlined_for_one_call(edit.node->loc)) return;
    auto owner = python.self_module(model, *edit.node);
    if (!owner) return;
    auto loc = ir::operand_location(model, *edit.node, static_cast<size_t>(edit.operand));
    if (!loc) loc = ir::variable_read_by(model, *edit.node, static_cast<size_t>(edit.operand));
    if (!loc) return python.note("no Python suggestion for the new stub at " + note_place(edit.node->loc));
    std::string text = ir::source_text(model, *loc);
    python.replace(loc->file, *loc, "self." + edit.new_stub + "(" + (edit.cast_to_float ? as_float(text) : text) + ")");
    python.add_stub_to_init(model, loc->file, edit.template_stub, edit.new_stub, *owner);
  }

  // C++ has no stub modules to clone: the operand goes through a call of the same one-argument
  // quantize function the model uses (`seed::quantize_int16(mask.to(torch::kFloat))`); an
  // operand such as `q > 0.5` is parenthesised before its cast (`(q > 0.5).to(torch::kFloat)`).
  void render_cxx(const ir::Model& model, const Edit& edit, SourceSuggestions& cxx) const override {
    const std::string here = "no C++ fix for the new quantize call at " + note_place(edit.node->loc);
    const ir::Attr* quantize = nullptr;
    for (const auto& fn : model.functions)
      ir::for_each_node(fn->body, [&](const ir::Node& n) {
        if (quantize == nullptr && n.kind == "prim::CallMethod" && !n.inputs.empty() &&
            n.inputs[0]->type.name == edit.template_stub)
          quantize = n.attr("quantize_call");
      });
    auto loc = ir::operand_location(model, *edit.node, static_cast<size_t>(edit.operand));
    if (quantize == nullptr)
      return cxx.note(here + ": the quantize call takes more than the tensor (give it its own by hand)");
    // Public round 19 had the reason above for `q *= keep`, whose operand qlint could not place.
    if (!loc) return cxx.note(here + ": qlint cannot place the operand in the source (quantize it by hand)");
    std::string text = ir::source_text(model, *loc);
    cxx.replace(loc->file, *loc,
                quantize->s + "(" + (edit.cast_to_float ? with_method_call(text, ".to(torch::kFloat)") : text) + ")");
  }
};

}  // namespace

const EditKind& quantize_operand_kind() {
  static const QuantizeOperand kind;
  return kind;
}

}  // namespace qlint::rewriter
