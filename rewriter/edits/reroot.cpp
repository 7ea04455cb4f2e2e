// reroot / reroot+quantize: a consumer that reads a view chain of a stub's output (`x[:, :, :,
// -1] == 1` after `x = self.quant(x)`) reads the same chain recomputed from the stub's float
// input instead, where the values are exact; with quantize_after_reroot the float value then
// gets a stub of its own (a float mask). Float results are unchanged: the stub is the identity.
#include <cctype>
#include <regex>
#include <vector>

#include "ir/ops.h"
#include "ir/source_text.h"
#include "rewriter/edits/edit_kind.h"
#include "rewriter/source_suggestions.h"

namespace qlint::rewriter {

namespace {

// The view nodes from the stub's output to the consumer's operand, nearest the consumer first.
std::vector<const ir::Node*> view_chain(const Edit& edit) {
  std::vector<const ir::Node*> chain;
  const ir::Value* stub_output = edit.stub_call->output();
  for (const ir::Value* v = edit.node->inputs.at(static_cast<size_t>(edit.operand)); v != stub_output;) {
    const ir::Node* p = v->producer;
    if (p == nullptr || !ir::is_view_op(p->kind) || p->inputs.empty() || chain.size() > 64)
      throw ir::RewriteRefused("the compared value does not reach the stub through views only");
    chain.push_back(p);
    v = p->inputs[0];
  }
  return chain;
}

// The quantizing half of reroot+quantize, as a quantize edit of its own.
Edit quantize_part(const Edit& edit) {
  Edit quantize = edit;
  quantize.kind = Edit::Kind::QuantizeOperand;
  quantize.cast_to_float = false;
  return quantize;
}

bool starts_with_name(const std::string& text, const std::string& name) {
  if (text.rfind(name, 0) != 0) return false;
  if (text.size() == name.size()) return true;
  char next = text[name.size()];
  return !(std::isalnum(static_cast<unsigned char>(next)) || next == '_');
}

// Rewrites the start of the view chain, `x[:, :, :, -1]` after `x = self.quant(x)`, to read
// the float alias instead. False, with a note, when the source does not allow it.
bool rename_chain_root(const ir::Model& model, const Edit& edit, SourceSuggestions& python) {
  static const std::regex assignment(R"(^\s*([A-Za-z_]\w*)\s*=\s*self\.)");
  const ir::Node& stub_call = *edit.stub_call;
  const std::string here = "no Python suggestion for the rewrite at " + note_place(edit.node->loc);
  if (!stub_call.loc.known()) {
    python.note(here + ": the model was traced, and traces record source lines but not expressions");
    return false;
  }
  if (!ir::same_python_function(stub_call, *edit.node)) {
    python.note(here + ": the stub call is in another Python function, whose float input this one cannot name");
    return false;
  }
  const std::string* stub_line = model.source_line(stub_call.loc.file, stub_call.loc.line);
  std::smatch m;
  if (stub_line == nullptr || !std::regex_search(*stub_line, m, assignment)) {
    python.note(here + ": the stub call is not a plain `name = self.stub(name)`");
    return false;
  }
  const std::string quantized_name = m[1];
  const std::string float_name = python.float_name_for(model, stub_call);
  const ir::Value* v = edit.node->inputs.at(static_cast<size_t>(edit.operand));
  for (int depth = 0; v && v->producer && v->producer != &stub_call && depth < 32; ++depth) {
    const ir::SourceLoc& loc = v->producer->loc;
    if (!float_name.empty() && starts_with_name(ir::source_text(model, loc), quantized_name)) {
      ir::SourceLoc name_loc = loc;
      name_loc.end_column = loc.column + static_cast<int>(quantized_name.size());
      python.replace(loc.file, name_loc, float_name);
      return true;
    }
    v = v->producer->inputs.empty() ? nullptr : v->producer->inputs[0];
  }
  python.note(here + ": its source does not name `" + quantized_name + "`");
  return false;
}

class Reroot final : public EditKind {
 public:
  std::string test_name(const Edit& edit) const override {
    return edit.quantize_after_reroot ? "reroot+quantize" : "reroot";
  }

  void apply(const ir::Model& model, const Edit& edit, ir::GraphRewriter& graph) const override {
    const std::vector<const ir::Node*> chain = view_chain(edit);
    const ir::Node& consumer = *edit.node;
    ir::GraphValue current = graph.value_of(*edit.stub_call->inputs.back());  // the stub's float input
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) current = graph.insert_copy(consumer, **it, current);
    graph.replace_input(consumer, static_cast<size_t>(edit.operand), current);
    for (const ir::Node* bypassed : chain) graph.erase_when_unused(*bypassed);
    if (edit.quantize_after_reroot) quantize_operand_kind().apply(model, quantize_part(edit), graph);
  }

  void render_python(const ir::Model& model, const Edit& edit, SourceSuggestions& python) const override {
    if (!python.self_module(model, *edit.node)) return;
    if (!rename_chain_root(model, edit, python) || !edit.quantize_after_reroot) return;
    quantize_operand_kind().render_python(model, quantize_part(edit), python);
  }
};

}  // namespace

const EditKind& reroot_kind() {
  static const Reroot kind;
  return kind;
}

}  // namespace qlint::rewriter
