#include "ir/torchscript/graph_rewriter.h"

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/ir.h>

#include <algorithm>

namespace qlint::torchscript {

namespace {

jit::Node* jit_node(const ir::Node& node) {
  if (node.origin == nullptr)
    throw ir::RewriteRefused("the operation `" + node.kind + "` has no counterpart in the model");
  return const_cast<jit::Node*>(static_cast<const jit::Node*>(node.origin));
}

jit::Value* jit_value(ir::GraphValue value) {
  if (value.handle == nullptr) throw ir::RewriteRefused("a rewrite used a value that does not exist");
  return const_cast<jit::Value*>(static_cast<const jit::Value*>(value.handle));
}

ir::GraphValue graph_value(const jit::Value* value) { return ir::GraphValue{value}; }

std::string self_or_path(const std::string& path) { return path.empty() ? "self" : "self." + path; }

}  // namespace

// ---- ir::GraphRewriter ------------------------------------------------------------------------

ir::GraphValue GraphRewriter::value_of(const ir::Value& value) {
  if (value.origin == nullptr)
    throw ir::RewriteRefused("the value `" + value.name + "` has no counterpart in the model");
  return ir::GraphValue{value.origin};
}

ir::GraphValue GraphRewriter::input_of(const ir::Node& node, size_t index) {
  jit::Node* n = jit_node(node);
  if (index >= n->inputs().size())
    throw ir::RewriteRefused("`" + node.kind + "` has no input " + std::to_string(index));
  return graph_value(n->input(index));
}

ir::GraphValue GraphRewriter::insert_op(const ir::Node& before, const std::string& kind,
                                        const std::vector<ir::OpArg>& args) {
  jit::Node* at = jit_node(before);
  std::vector<jit::NamedValue> inputs;
  for (const ir::OpArg& arg : args) {
    if (arg.integer) {
      inputs.emplace_back(c10::IValue(*arg.integer));
    } else {
      inputs.emplace_back(jit_value(arg.value));
    }
  }
  jit::WithInsertPoint guard(at);
  jit::Value* out = at->owningGraph()->insert(c10::Symbol::fromQualString(kind), inputs);
  out->node()->setSourceRange(at->sourceRange());
  return graph_value(out);
}

ir::GraphValue GraphRewriter::insert_copy(const ir::Node& before, const ir::Node& original_ir,
                                          ir::GraphValue first_input) {
  jit::Node* at = jit_node(before);
  jit::Node* original = jit_node(original_ir);
  jit::Value* replacement = jit_value(first_input);
  jit::Graph& g = *at->owningGraph();
  jit::Node* copy =
      g.createClone(original, [&](jit::Value* in) { return in == original->input(0) ? replacement : in; });
  copy->setSourceRange(original->sourceRange());
  copy->insertBefore(at);
  if (copy->outputs().size() != 1) throw ir::RewriteRefused("`" + original_ir.kind + "` has several outputs");
  return graph_value(copy->output());
}

void GraphRewriter::add_submodule_clone(const std::string& owner_path, const std::string& name,
                                        const std::string& template_path) {
  jit::Module owner = module_at(owner_path);
  require_own_class(owner, owner_path);
  if (owner.hasattr(name))
    throw ir::RewriteRefused("`" + self_or_path(owner_path) + "` already has an attribute `" + name + "`");
  owner.register_module(name, module_at(template_path).clone());
}

ir::GraphValue GraphRewriter::insert_get_attr(const ir::Node& before, ir::GraphValue object, const std::string& name) {
  jit::Node* at = jit_node(before);
  jit::WithInsertPoint guard(at);
  jit::Value* out = at->owningGraph()->insertGetAttr(jit_value(object), name);
  out->node()->setSourceRange(at->sourceRange());
  return graph_value(out);
}

ir::GraphValue GraphRewriter::insert_forward_call(const ir::Node& before, ir::GraphValue module,
                                                  ir::GraphValue argument) {
  jit::Node* at = jit_node(before);
  jit::Graph& g = *at->owningGraph();
  jit::Node* call = g.create(c10::prim::CallMethod, {jit_value(module), jit_value(argument)}, 1);
  call->s_(c10::attr::name, "forward");
  call->output()->setType(c10::TensorType::get());
  call->setSourceRange(at->sourceRange());
  call->insertBefore(at);
  return graph_value(call->output());
}

void GraphRewriter::replace_input(const ir::Node& node, size_t index, ir::GraphValue value) {
  jit_node(node)->replaceInput(index, jit_value(value));
}

void GraphRewriter::replace_uses(const ir::Node& node, ir::GraphValue value) {
  jit::Node* n = jit_node(node);
  if (n->outputs().size() != 1) throw ir::RewriteRefused("`" + node.kind + "` has several outputs");
  n->output()->replaceAllUsesWith(jit_value(value));
}

void GraphRewriter::erase_when_unused(const ir::Node& node) { erase_candidates_.push_back(jit_node(node)); }

void GraphRewriter::finish() {
  auto unused = [](const jit::Node* n) {
    return std::all_of(n->outputs().begin(), n->outputs().end(), [](const jit::Value* v) { return v->uses().empty(); });
  };
  for (bool erased = true; erased;) {
    erased = false;
    for (auto it = erase_candidates_.begin(); it != erase_candidates_.end();) {
      if (!unused(*it)) {
        ++it;
        continue;
      }
      (*it)->destroy();
      it = erase_candidates_.erase(it);
      erased = true;
    }
  }
}

// ---- LibTorch-level operations ----------------------------------------------------------------

jit::Node* GraphRewriter::insert_after(jit::Node* node, const std::string& op, const std::vector<jit::Value*>& inputs) {
  jit::Node* inserted = node->owningGraph()->create(c10::Symbol::fromQualString(op), inputs, 1);
  inserted->output()->setType(node->output()->type());
  inserted->insertAfter(node);
  node->output()->replaceAllUsesAfterNodeWith(inserted, inserted->output());
  return inserted;
}

jit::Node* GraphRewriter::replace_with(jit::Node* node, const std::string& op, const std::vector<jit::Value*>& inputs) {
  jit::Node* replacement = node->owningGraph()->create(c10::Symbol::fromQualString(op), inputs, 1);
  replacement->output()->setType(node->output()->type());
  replacement->insertAfter(node);
  node->output()->replaceAllUsesWith(replacement->output());
  node->destroy();
  return replacement;
}

jit::Value* GraphRewriter::insert_call(jit::Node* before, const std::string& op,
                                       const std::vector<jit::NamedValue>& args) {
  jit::WithInsertPoint guard(before);
  jit::Value* out = before->owningGraph()->insert(c10::Symbol::fromQualString(op), args);
  out->node()->setSourceRange(before->sourceRange());
  return out;
}

std::vector<jit::Value*> GraphRewriter::unpack(jit::Node* before, jit::Value* tuple) {
  jit::Node* unpacked = before->owningGraph()->createTupleUnpack(tuple);
  unpacked->insertBefore(before);
  return {unpacked->outputs().begin(), unpacked->outputs().end()};
}

void GraphRewriter::replace_and_erase(jit::Node* node, const std::vector<jit::Value*>& values) {
  for (size_t i = 0; i < values.size(); ++i) node->outputs()[i]->replaceAllUsesWith(values[i]);
  node->destroy();
}

jit::Value* GraphRewriter::insert_constant(jit::Node* before, const c10::IValue& value) {
  jit::WithInsertPoint guard(before);
  return before->owningGraph()->insertConstant(value);
}

std::shared_ptr<jit::Graph> GraphRewriter::own_copy_of_callee(jit::Node* call) {
  auto type = call->input(0)->type()->cast<c10::FunctionType>();
  if (!type || !type->function()->isGraphFunction()) return nullptr;
  jit::Function* original = type->function();
  // Already one of this rewriter's copies (a second pass over the same graphs): it is ours.
  for (const auto& made : function_copies_)
    if (made.second == original) return jit::toGraphFunction(*original).graph();
  jit::Function*& copy = function_copies_[original];
  if (copy == nullptr) {
    // A new function in the root module's compilation unit, named after the original.
    auto unit = root_._ivalue()->compilation_unit();
    // Clones of a module share its compilation unit, and other rewriters copy into it too.
    c10::QualifiedName name;
    for (int n = 1; n == 1 || unit->find_function(name) != nullptr; ++n)
      name = c10::QualifiedName(original->qualname().prefix(), original->name() + "__qlint_copy_" + std::to_string(n));
    copy = unit->create_function(name, jit::toGraphFunction(*original).graph()->copy());
    copy->setSchema(original->getSchema());
  }
  if (call->input(0)->type()->cast<c10::FunctionType>()->function() != copy) {
    jit::Graph& g = *call->owningGraph();
    jit::Node* constant = g.create(c10::prim::Constant);
    constant->s_(c10::attr::name, copy->name());
    constant->output()->setType(c10::FunctionType::create(copy));
    constant->insertBefore(call);
    call->replaceInput(0, constant->output());
  }
  return jit::toGraphFunction(*copy).graph();
}

void GraphRewriter::corrupt_first_output() {
  auto graph = root_.get_method("forward").graph();
  jit::Value* out = graph->outputs().at(0);
  if (!out->type()->cast<c10::TensorType>()) return;
  jit::WithInsertPoint guard(graph->return_node());
  graph->return_node()->replaceInput(0, graph->insert(c10::aten::mul, {out, 1.0001}));
}

// ---- Modules ----------------------------------------------------------------------------------

jit::Module GraphRewriter::module_at(const std::string& path) {
  for (const auto& m : root_.named_modules())
    if (m.name == path) return m.value;
  throw ir::RewriteRefused("the module `" + self_or_path(path) + "` is not in the model");
}

// Adding a submodule changes the module's class; with several instances of one class, the
// others would miss it.
void GraphRewriter::require_own_class(const jit::Module& module, const std::string& path) {
  int instances = 0;
  for (const auto& other : root_.named_modules())
    if (other.value.type() == module.type()) ++instances;
  if (instances > 1)
    throw ir::RewriteRefused("the class of `" + self_or_path(path) +
                             "` is shared by several module instances, so a stub cannot be added to one of them");
}

}  // namespace qlint::torchscript
