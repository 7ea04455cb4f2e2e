#include "ir/torchscript/graph_rewriter.h"

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/ir.h>

#include <algorithm>

#include "ir/torchscript/source_location.h"

namespace qlint::torchscript {

namespace {

void number_block(const jit::Block& block, int& next, std::map<const jit::Value*, std::string>& out) {
  for (const jit::Node* node : block.nodes()) {
    const std::string at = "n" + std::to_string(next++);
    for (size_t k = 0; k < node->outputs().size(); ++k) out[node->outputs()[k]] = at + "." + std::to_string(k);
    for (size_t b = 0; b < node->blocks().size(); ++b) {
      const jit::Block& inner = *node->blocks()[b];
      for (size_t k = 0; k < inner.inputs().size(); ++k)
        out[inner.inputs()[k]] = at + ".b" + std::to_string(b) + "." + std::to_string(k);
      number_block(inner, next, out);
    }
  }
}

}  // namespace

std::map<const jit::Value*, std::string> value_positions(const jit::Graph& graph) {
  std::map<const jit::Value*, std::string> out;
  for (size_t i = 0; i < graph.inputs().size(); ++i) out[graph.inputs()[i]] = "in" + std::to_string(i);
  int next = 0;
  number_block(*graph.block(), next, out);
  return out;
}

namespace {

jit::Value* jit_value(ir::GraphValue value) {
  if (value.handle == nullptr) throw ir::RewriteRefused("a rewrite used a value that does not exist");
  return const_cast<jit::Value*>(static_cast<const jit::Value*>(value.handle));
}

ir::GraphValue graph_value(const jit::Value* value) { return ir::GraphValue{value}; }

std::string self_or_path(const std::string& path) { return path.empty() ? "self" : "self." + path; }

// Graph::copy keeps the order of nodes, blocks and values: the copy's counterparts, found by
// walking both in step.
void match_blocks(jit::Block* from, jit::Block* copy, std::map<jit::Node*, jit::Node*>& nodes,
                  std::map<jit::Value*, jit::Value*>& values) {
  for (size_t i = 0; i < from->inputs().size() && i < copy->inputs().size(); ++i)
    values[from->inputs()[i]] = copy->inputs()[i];
  auto a = from->nodes().begin();
  auto b = copy->nodes().begin();
  for (; a != from->nodes().end() && b != copy->nodes().end(); ++a, ++b) {
    nodes[*a] = *b;
    for (size_t i = 0; i < a->outputs().size() && i < b->outputs().size(); ++i)
      values[a->outputs()[i]] = b->outputs()[i];
    for (size_t i = 0; i < a->blocks().size() && i < b->blocks().size(); ++i)
      match_blocks(a->blocks()[i], b->blocks()[i], nodes, values);
  }
}

// A name `base__qlint_float_N` that `taken` does not know yet.
template <typename Taken>
std::string fresh_name(const std::string& base, Taken taken) {
  for (int n = 1;; ++n) {
    std::string name = base + "__qlint_float_" + std::to_string(n);
    if (!taken(name)) return name;
  }
}

// The copy's parameters, then the extra ones. Defaults and keyword-only marks are dropped: a
// graph's call passes every argument positionally, and a parameter without default may not follow
// one with (`forward(self, x, mask: Optional[Tensor]=None)` is how attention layers are written).
c10::FunctionSchema with_extra_arguments(const c10::FunctionSchema& schema, const std::string& name,
                                         const std::vector<c10::TypePtr>& extra) {
  std::vector<c10::Argument> arguments;
  for (const c10::Argument& a : schema.arguments()) arguments.emplace_back(a.name(), a.type(), a.N());
  for (const c10::TypePtr& type : extra)
    arguments.emplace_back("qlint_float_" + std::to_string(arguments.size()), type);
  return c10::FunctionSchema(name, "", std::move(arguments), schema.returns());
}

}  // namespace

jit::Node* GraphRewriter::node_for(const ir::Node& node) const {
  jit::Node* found = nullptr;
  if (auto it = node_redirects_.find(&node); it != node_redirects_.end()) found = it->second;
  if (found == nullptr && node.origin == nullptr)
    throw ir::RewriteRefused("the operation `" + node.kind + "` has no counterpart in the model");
  if (found == nullptr) found = const_cast<jit::Node*>(static_cast<const jit::Node*>(node.origin));
  // Compared as addresses only: a destroyed node is never read.
  if (destroyed_.count(found))
    throw ir::RewriteRefused("the operation `" + node.kind + "` was in a loop or call this round rewrote");
  return found;
}

jit::Value* GraphRewriter::value_for(const ir::Value& value) const {
  if (auto it = value_redirects_.find(&value); it != value_redirects_.end()) return it->second;
  if (value.origin == nullptr)
    throw ir::RewriteRefused("the value `" + value.name + "` has no counterpart in the model");
  return const_cast<jit::Value*>(static_cast<const jit::Value*>(value.origin));
}

// ---- ir::GraphRewriter ------------------------------------------------------------------------

ir::GraphValue GraphRewriter::value_of(const ir::Value& value) { return graph_value(value_for(value)); }

ir::GraphValue GraphRewriter::input_of(const ir::Node& node, size_t index) {
  jit::Node* n = node_for(node);
  if (index >= n->inputs().size())
    throw ir::RewriteRefused("`" + node.kind + "` has no input " + std::to_string(index));
  return graph_value(n->input(index));
}

ir::GraphValue GraphRewriter::insert_op(const ir::Node& before, const std::string& kind,
                                        const std::vector<ir::OpArg>& args) {
  jit::Node* at = node_for(before);
  std::vector<jit::NamedValue> inputs;
  for (const ir::OpArg& arg : args) {
    if (arg.integer) {
      inputs.emplace_back(c10::IValue(*arg.integer));
    } else if (arg.real) {
      inputs.emplace_back(c10::IValue(*arg.real));
    } else {
      inputs.emplace_back(jit_value(arg.value));
    }
  }
  jit::WithInsertPoint guard(at);
  jit::Value* out = at->owningGraph()->insert(c10::Symbol::fromQualString(kind), inputs);
  out->node()->setSourceRange(at->sourceRange());
  return graph_value(out);
}

std::vector<ir::GraphValue> GraphRewriter::insert_copy_after(const ir::Node& original_ir,
                                                             const std::vector<std::optional<ir::GraphValue>>& inputs) {
  jit::Node* original = node_for(original_ir);
  std::map<jit::Value*, jit::Value*> replaced;
  for (size_t i = 0; i < inputs.size() && i < original->inputs().size(); ++i)
    if (inputs[i]) replaced[original->input(i)] = jit_value(*inputs[i]);
  jit::Node* copy = original->owningGraph()->createClone(original, [&](jit::Value* in) {
    auto it = replaced.find(in);
    return it == replaced.end() ? in : it->second;
  });
  copy->setSourceRange(original->sourceRange());
  copy->insertAfter(original);
  std::vector<ir::GraphValue> outputs;
  for (jit::Value* out : copy->outputs()) outputs.push_back(graph_value(out));
  return outputs;
}

std::vector<ir::GraphValue> GraphRewriter::add_loop_carried(const ir::Node& loop_ir,
                                                            const std::vector<ir::GraphValue>& initial,
                                                            const NextIteration& next) {
  jit::Node* loop = node_for(loop_ir);
  if (loop->kind() != c10::prim::Loop || loop->blocks().size() != 1)
    throw ir::RewriteRefused("`" + loop_ir.kind + "` is not a loop TorchScript can carry more values in");
  jit::Block* body = loop->blocks()[0];
  std::vector<ir::GraphValue> in_iteration, after;
  for (const ir::GraphValue& start : initial) {
    jit::Value* value = jit_value(start);
    c10::TypePtr type = c10::unshapedType(value->type());
    loop->addInput(value);
    in_iteration.push_back(graph_value(body->addInput()->setType(type)));
    after.push_back(graph_value(loop->addOutput()->setType(type)));
  }
  std::vector<ir::GraphValue> next_values;
  try {
    next_values = next(in_iteration);
    if (next_values.size() != in_iteration.size()) throw ir::RewriteRefused("a loop-carried value has no next value");
    for (const ir::GraphValue& v : next_values) jit_value(v);  // each exists
  } catch (...) {
    for (const ir::GraphValue& v : in_iteration) body->registerOutput(jit_value(v));
    throw;
  }
  for (const ir::GraphValue& v : next_values) body->registerOutput(jit_value(v));
  return after;
}

std::vector<ir::GraphValue> GraphRewriter::add_branch_outputs(
    const ir::Node& branch_ir, const std::vector<std::vector<ir::GraphValue>>& per_block) {
  jit::Node* branch = node_for(branch_ir);
  if (branch->kind() != c10::prim::If || branch->blocks().size() != per_block.size())
    throw ir::RewriteRefused("`" + branch_ir.kind + "` is not a branch with one value per block");
  for (const auto& values : per_block)
    if (values.size() != per_block.front().size()) throw ir::RewriteRefused("a branch's blocks return unlike values");
  std::vector<ir::GraphValue> outputs;
  for (size_t i = 0; !per_block.empty() && i < per_block.front().size(); ++i) {
    for (size_t b = 0; b < per_block.size(); ++b) branch->blocks()[b]->registerOutput(jit_value(per_block[b][i]));
    outputs.push_back(
        graph_value(branch->addOutput()->setType(c10::unshapedType(jit_value(per_block.front()[i])->type()))));
  }
  return outputs;
}

std::vector<ir::GraphValue> GraphRewriter::call_copy_with_extra_arguments(const ir::Node& call_ir,
                                                                          const ir::Function& callee,
                                                                          const std::vector<ir::GraphValue>& extra) {
  jit::Node* call = node_for(call_ir);
  jit::Graph* from = nullptr;
  // Each extra parameter is typed like what is passed (a tensor, or a dict of them).
  std::vector<c10::TypePtr> types;
  for (const ir::GraphValue& argument : extra) types.push_back(c10::unshapedType(jit_value(argument)->type()));
  jit::Graph& copy = *jit::toGraphFunction(retarget_to_copy(call, types, from)).graph();
  redirect_into(callee, *from, copy);
  for (const ir::GraphValue& argument : extra) call->addInput(jit_value(argument));
  std::vector<ir::GraphValue> params;
  for (size_t i = copy.inputs().size() - extra.size(); i < copy.inputs().size(); ++i)
    params.push_back(graph_value(copy.inputs()[i]));
  return params;
}

// The copy returns a tuple of the callee's value and the more values; the call site unpacks it
// right after the call, and the call's old uses read its first element.
std::vector<ir::GraphValue> GraphRewriter::call_copy_returning_more(const ir::Node& call_ir, const ir::Function& callee,
                                                                    const MoreReturns& more) {
  jit::Node* call = node_for(call_ir);
  if (call->outputs().size() != 1) throw ir::RewriteRefused("a call with several outputs cannot return more");
  jit::Graph* from = nullptr;
  jit::Function& made = retarget_to_copy(call, {}, from);
  jit::Graph& copy = *jit::toGraphFunction(made).graph();
  redirect_into(callee, *from, copy);
  // The more values first: computing them may make the copy's own calls return more too
  // (`return self.head(x)`, the head's copy returning its float twin), which moves what the copy
  // returns to the first element the call site unpacks. Read before, it was the whole tuple
  // (YOLOX: "Schema not found for node" when writing the fixed model).
  const std::vector<ir::GraphValue> more_values = more();
  std::vector<jit::Value*> returned = {copy.outputs().at(0)};
  for (const ir::GraphValue& v : more_values) returned.push_back(jit_value(v));
  jit::Node* tuple = copy.createTuple(returned);
  tuple->insertBefore(copy.return_node());
  copy.eraseOutput(0);
  copy.registerOutput(tuple->output());
  const c10::FunctionSchema& schema = made.getSchema();
  made.setSchema(c10::FunctionSchema(schema.name(), schema.overload_name(), schema.arguments(),
                                     {c10::Argument("", tuple->output()->type())}));

  jit::Value* result = call->output();
  result->setType(tuple->output()->type());
  jit::Node* unpack = call->owningGraph()->createTupleUnpack(result);
  unpack->insertAfter(call);
  result->replaceAllUsesWith(unpack->output(0));
  unpack->replaceInput(0, result);
  value_redirects_[call_ir.outputs.at(0)] = unpack->output(0);
  std::vector<ir::GraphValue> unpacked_more;
  for (size_t i = 1; i < unpack->outputs().size(); ++i) unpacked_more.push_back(graph_value(unpack->output(i)));
  return unpacked_more;
}

jit::Function& GraphRewriter::retarget_to_copy(jit::Node* call, const std::vector<c10::TypePtr>& extra,
                                               jit::Graph*& from) {
  jit::Function* original = nullptr;
  c10::ClassTypePtr cls;
  if (call->kind() == c10::prim::CallMethod) {
    cls = call->input(0)->type()->cast<c10::ClassType>();
    if (cls) original = &cls->getMethod(call->s(c10::attr::name));
  } else if (call->kind() == c10::prim::CallFunction) {
    if (auto type = call->input(0)->type()->cast<c10::FunctionType>()) original = type->function();
  }
  if (original == nullptr || !original->isGraphFunction())
    throw ir::RewriteRefused("a call whose callee has no graph cannot pass a float value on");
  from = jit::toGraphFunction(*original).graph().get();
  std::shared_ptr<jit::Graph> graph = from->copy();
  for (const c10::TypePtr& type : extra) graph->addInput()->setType(type);
  jit::Function* made = nullptr;
  if (cls) {
    // Free in the class and in its unit: a copy a refused edit left there keeps its name.
    std::string name = fresh_name(original->name(), [&](const std::string& n) {
      return cls->findMethod(n) != nullptr ||
             cls->compilation_unit()->find_function(c10::QualifiedName(*cls->name(), n)) != nullptr;
    });
    c10::FunctionSchema schema = with_extra_arguments(original->getSchema(), name, extra);
    made = cls->compilation_unit()->create_function(c10::QualifiedName(*cls->name(), name), graph);
    made->setSchema(std::move(schema));
    cls->addMethod(made);
    call->s_(c10::attr::name, name);
  } else {
    auto unit = root_._ivalue()->compilation_unit();
    std::string name = fresh_name(original->name(), [&](const std::string& n) {
      return unit->find_function(c10::QualifiedName(original->qualname().prefix(), n)) != nullptr;
    });
    c10::FunctionSchema schema = with_extra_arguments(original->getSchema(), name, extra);
    made = unit->create_function(c10::QualifiedName(original->qualname().prefix(), name), graph);
    made->setSchema(std::move(schema));
    jit::Node* constant = call->owningGraph()->create(c10::prim::Constant);
    constant->s_(c10::attr::name, name);
    constant->output()->setType(c10::FunctionType::create(made));
    constant->insertBefore(call);
    call->replaceInput(0, constant->output());
  }
  return *made;
}

void GraphRewriter::add_submodule_clone(const std::string& owner_path, const std::string& name,
                                        const std::string& template_path) {
  register_clone(owner_path, name, module_at(template_path).clone());
}

namespace {

// Sets a FakeQuantize's `scale` and `zero_point` buffers and its observer's `min_val` and
// `max_val` (the running range). False when it has no scale buffer.
bool set_fake_quant_state(jit::Module& fake_quant, double scale, int64_t zero_point, double min, double max) {
  bool has_scale = false;
  for (const auto& buffer : fake_quant.named_buffers(true)) {
    const std::string leaf = buffer.name.substr(buffer.name.rfind('.') + 1);
    at::Tensor value = buffer.value;
    if (buffer.name == "scale") {
      value.fill_(scale);
      has_scale = true;
    } else if (buffer.name == "zero_point") {
      value.fill_(zero_point);
    } else if (leaf == "min_val") {
      value.fill_(min);
    } else if (leaf == "max_val") {
      value.fill_(max);
    }
  }
  return has_scale;
}

// A plain FakeQuantize traced with its observer on and called more than once: the trace passes
// the observer's state from one call to the next, so the first call's `forward` returns that
// state with the quantized tensor (`eval()` alone leaves observers on). A clone is called on its
// own: its forward returns the tensor only, and keeps updating its own range as the model's do.
void return_only_the_quantized_tensor(jit::Module& fake_quant) {
  jit::Function& forward = fake_quant.get_method("forward").function();
  jit::Graph& graph = *jit::toGraphFunction(forward).graph();
  if (graph.outputs().size() != 1 || graph.outputs()[0]->type()->kind() != c10::TypeKind::TupleType) return;
  jit::Node* tuple = graph.outputs()[0]->node();
  jit::Value* quantized = nullptr;
  int found = 0;
  for (jit::Value* element : tuple->kind() == c10::prim::TupleConstruct ? tuple->inputs() : at::ArrayRef<jit::Value*>())
    if (std::string(element->node()->kind().toQualString()) == "aten::fake_quantize_per_tensor_affine") {
      quantized = element;
      ++found;
    }
  if (found != 1)
    throw ir::RewriteRefused(
        "the fake quant's traced forward returns more than its output, which a clone cannot "
        "be called for; trace the model after `model.apply(torch.ao.quantization.disable_observer)`");
  graph.eraseOutput(0);
  graph.registerOutput(quantized);
  if (!tuple->hasUses()) tuple->destroy();
  forward.setSchema(forward.getSchema().cloneWithReturns({c10::Argument("", quantized->type())}));
}

at::Tensor run_forward(jit::Module& module, const at::Tensor& x) {
  at::NoGradGuard no_grad;
  return module.forward({x}).toTensor();
}

}  // namespace

ir::GraphRewriter::FakeQuantStart GraphRewriter::add_fake_quant_clone(const std::string& owner_path,
                                                                      const std::string& name,
                                                                      const std::string& template_path,
                                                                      const FakeQuantStart& start) {
  // A clone whose scale follows its running range (a fused fake quant, or a plain one traced
  // with its observer on) gets a mask's scale 1 from a range as wide as the integer range
  // (affine) or half as wide (symmetric); one that keeps its scale is given scale 1. So do whole
  // numbers, which fall back to the calibrated start where no such clone keeps them exact.
  struct Attempt {
    double scale, min, max;
    int64_t zero_point;
    bool exact;  // must keep `kept` exact
  };
  std::vector<Attempt> attempts;
  if (start.mask || start.whole_up_to > 0) {
    const auto width = static_cast<double>(start.quant_max - start.quant_min);
    // Below 0 too (a sign's -1): affine from the lowest whole number, symmetric around 0.
    const auto from = static_cast<double>(start.mask ? 0 : start.whole_from);
    if (from < 0)
      attempts = {{1.0, from, from + width, 0, true}, {1.0, -width / 2, width / 2, 0, true}};
    else
      attempts = {{1.0, 0, width, 0, true}, {1.0, 0, width / 2, 0, true}};
  }
  if (!start.mask) attempts.push_back({start.scale, start.min, start.max, start.zero_point, false});
  const at::Tensor kept =
      at::arange(start.mask ? 0 : start.whole_from, start.mask ? 2 : start.whole_up_to + 1, at::kFloat);
  // A FakeQuantize reached from two modules of a trace takes its buffers as arguments before the
  // tensor (`forward(observer_enabled, fake_quant_enabled, scale, zero_point, x)`): a clone would
  // be called with the state of the module it was cloned from (public round 22).
  if (module_at(template_path).get_method("forward").function().getSchema().arguments().size() > 2)
    throw ir::RewriteRefused("the trace passes `" + template_path +
                             "` its state as arguments (its module is reached from two modules, such as a stub also "
                             "held by an nn.Sequential), which a clone could not take from itself; in the Python "
                             "model, give the tensor a QuantStub of its own and trace again");
  for (const Attempt& attempt : attempts) {
    jit::Module fake_quant = module_at(template_path).clone();
    return_only_the_quantized_tensor(fake_quant);
    FakeQuantStart in_effect = start;
    in_effect.min = attempt.min;
    in_effect.max = attempt.max;
    if (!set_fake_quant_state(fake_quant, attempt.scale, attempt.zero_point, in_effect.min, in_effect.max))
      throw ir::RewriteRefused("`" + template_path + "` keeps no scale buffer to start a clone from");
    // One call: a fused fake quant computes its scale and zero point from the range, as the
    // model's own do, and so does a plain one traced with its observer on (the trace keeps the
    // observer's update); one with its observer off keeps the scale it was given.
    run_forward(fake_quant, at::tensor({in_effect.min, in_effect.max}, at::kFloat));
    in_effect.scale = fake_quant.attr("scale").toTensor().item<double>();
    in_effect.zero_point = fake_quant.attr("zero_point").toTensor().item<int64_t>();
    // A mask's clone must keep 0 and 1 exact (whole numbers: each of them); checked on a copy,
    // since with observation on a call moves the running range.
    jit::Module probe = fake_quant.deepcopy();
    if (attempt.exact && !at::equal(run_forward(probe, kept), kept)) continue;
    if (!attempt.exact) in_effect.whole_up_to = in_effect.whole_from = 0;
    register_clone(owner_path, name, fake_quant);
    clone_starts_[owner_path + "." + name] = in_effect;
    return in_effect;
  }
  throw ir::RewriteRefused("a clone of `" + template_path + "` does not keep a mask's 0 and 1 exact");
}

std::optional<ir::GraphRewriter::FakeQuantStart> GraphRewriter::fake_quant_clone_start(const std::string& owner_path,
                                                                                       const std::string& name) const {
  auto it = clone_starts_.find(owner_path + "." + name);
  if (it == clone_starts_.end()) return std::nullopt;
  return it->second;
}

void GraphRewriter::register_clone(const std::string& owner_path, const std::string& name, const jit::Module& clone) {
  // The owner's methods are its class's: every instance of the class runs the edited graph, so
  // every instance gets a module of its own (one clone, deep-copied: one type, separate state).
  const std::vector<jit::Module> instances = instances_of_class(module_at(owner_path));
  for (const jit::Module& instance : instances)
    if (instance.hasattr(name))
      throw ir::RewriteRefused("`" + self_or_path(owner_path) + "` already has an attribute `" + name + "`");
  for (size_t i = 0; i < instances.size(); ++i) {
    jit::Module instance = instances[i];
    instance.register_module(name, i == 0 ? clone : clone.deepcopy());
  }
  added_clones_.insert(owner_path + "." + name);
  clone_classes_.insert(clone.type().get());
}

bool GraphRewriter::added_clone(const std::string& owner_path, const std::string& name) const {
  return added_clones_.count(owner_path + "." + name) > 0;
}

ir::GraphValue GraphRewriter::insert_get_attr(const ir::Node& before, ir::GraphValue object, const std::string& name) {
  jit::Node* at = node_for(before);
  jit::WithInsertPoint guard(at);
  jit::Value* out = at->owningGraph()->insertGetAttr(jit_value(object), name);
  out->node()->setSourceRange(at->sourceRange());
  return graph_value(out);
}

namespace {

// The Python range a trace recorded for the node: its own, or, for a call of a module's method
// (whose range is a line of the archive's serialized code), that of the first op of the method
// it calls that has one: the stack of that call, at the user's line.
std::optional<jit::SourceRange> traced_python_range(jit::Node& node, int depth = 0) {
  if (recorded_by_trace(node)) return node.sourceRange();
  if (node.kind() != c10::prim::CallMethod || node.inputs().empty() || depth > 4) return std::nullopt;
  auto cls = node.input(0)->type()->cast<c10::ClassType>();
  jit::Function* method = cls ? cls->findMethod(node.s(c10::attr::name)) : nullptr;
  if (method == nullptr || !method->isGraphFunction()) return std::nullopt;
  for (jit::Node* inner : jit::toGraphFunction(*method).graph()->nodes())
    if (auto range = traced_python_range(*inner, depth + 1)) return range;
  return std::nullopt;
}

void set_every_range(jit::Block& block, const jit::SourceRange& range) {
  for (jit::Node* node : block.nodes()) {
    node->setSourceRange(range);
    for (jit::Block* inner : node->blocks()) set_every_range(*inner, range);
  }
}

}  // namespace

// A trace's clone of a FakeQuantize keeps the ops of the module it copies, with the stack of
// that module's first call: the simulator and attribution would place the new quant point at
// that call's line (public round 24's Yolo-FastestV2: the clone for a head's second call was
// listed at its first). The clone's ops and the call take the line of the call they serve.
void GraphRewriter::place_clone_at(jit::Node& at, jit::Node& call, jit::Value& self) {
  auto cls = self.type()->cast<c10::ClassType>();
  if (!cls || !clone_classes_.count(cls.get())) return;
  std::optional<jit::SourceRange> range = traced_python_range(at);
  if (!range) return;
  call.setSourceRange(*range);
  if (jit::Function* forward = cls->findMethod("forward"); forward != nullptr && forward->isGraphFunction())
    set_every_range(*jit::toGraphFunction(*forward).graph()->block(), *range);
}

ir::GraphValue GraphRewriter::insert_forward_call(const ir::Node& before, ir::GraphValue module,
                                                  ir::GraphValue argument) {
  jit::Node* at = node_for(before);
  jit::Graph& g = *at->owningGraph();
  jit::Value* self = jit_value(module);
  jit::Node* call = g.create(c10::prim::CallMethod, {self, jit_value(argument)}, 1);
  call->s_(c10::attr::name, "forward");
  call->setSourceRange(at->sourceRange());
  place_clone_at(*at, *call, *self);
  call->insertBefore(at);
  // A FakeQuantize a trace called several times, its observer on, returns its observer's state
  // for the next call with the tensor last (`return (min_val, ..., scale, zero_point, x0)`).
  c10::TypePtr returned = c10::TensorType::get();
  if (auto cls = self->type()->cast<c10::ClassType>(); cls && cls->findMethod("forward"))
    returned = cls->getMethod("forward").getSchema().returns().at(0).type();
  call->output()->setType(returned);
  auto tuple = returned->cast<c10::TupleType>();
  if (!tuple) return graph_value(call->output());
  if (tuple->elements().empty() || !tuple->elements().back()->cast<c10::TensorType>())
    throw ir::RewriteRefused("the fake quant's forward returns no tensor last");
  jit::Node* unpack = g.createTupleUnpack(call->output());
  unpack->insertAfter(call);
  return graph_value(unpack->outputs().back());
}

void GraphRewriter::replace_input(const ir::Node& node, size_t index, ir::GraphValue value) {
  node_for(node)->replaceInput(index, jit_value(value));
}

void GraphRewriter::replace_uses(const ir::Node& node, ir::GraphValue value) {
  jit::Node* n = node_for(node);
  if (n->outputs().size() != 1) throw ir::RewriteRefused("`" + node.kind + "` has several outputs");
  n->output()->replaceAllUsesWith(jit_value(value));
}

void GraphRewriter::replace_quant_call(const ir::Node& call_ir, ir::GraphValue value) {
  jit::Node* call = node_for(call_ir);
  if (call->outputs().size() != 1) throw ir::RewriteRefused("the quant call has several outputs");
  jit::Value* out = call->output();
  auto tuple = out->type()->cast<c10::TupleType>();
  if (!tuple) {
    out->replaceAllUsesWith(jit_value(value));
    return erase_when_unused(call_ir);
  }
  // (state..., tensor), the state it received after the tensor, in the same order.
  const size_t state = tuple->elements().size() - 1;
  if (tuple->elements().empty() || call->inputs().size() != state + 2)
    throw ir::RewriteRefused(
        "the quant call is a trace's first call of a FakeQuantize it calls again, which hands its observer's "
        "state on to the next call");
  std::vector<jit::Node*> unpacks;
  for (const jit::Use& use : out->uses()) {
    if (use.user->kind() != c10::prim::TupleUnpack || use.user->outputs().size() != state + 1)
      throw ir::RewriteRefused("the quant call's state is read other than by unpacking it");
    unpacks.push_back(use.user);
  }
  for (jit::Node* unpack : unpacks) {
    for (size_t i = 0; i < state; ++i) unpack->output(i)->replaceAllUsesWith(call->input(i + 2));
    unpack->output(state)->replaceAllUsesWith(jit_value(value));
    destroy(unpack);
  }
  erase_when_unused(call_ir);
}

// Several edits may ask for the same node (two comparisons reading one view): it is erased once.
void GraphRewriter::erase_when_unused(const ir::Node& node) {
  jit::Node* n = node_for(node);
  if (std::find(erase_candidates_.begin(), erase_candidates_.end(), n) == erase_candidates_.end())
    erase_candidates_.push_back(n);
}

void GraphRewriter::destroy(jit::Node* node) {
  erase_candidates_.erase(std::remove(erase_candidates_.begin(), erase_candidates_.end(), node),
                          erase_candidates_.end());
  remember_destroyed(node);
  node->destroy();
}

void GraphRewriter::remember_destroyed(jit::Node* node) {
  destroyed_.insert(node);
  erase_candidates_.erase(std::remove(erase_candidates_.begin(), erase_candidates_.end(), node),
                          erase_candidates_.end());
  for (jit::Block* block : node->blocks())
    for (jit::Node* inner : block->nodes()) remember_destroyed(inner);
}

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

void GraphRewriter::redirect_into(const ir::Function& callee, jit::Graph& from, jit::Graph& copy) {
  std::map<jit::Node*, jit::Node*> nodes;
  std::map<jit::Value*, jit::Value*> values;
  match_blocks(from.block(), copy.block(), nodes, values);
  redirect(callee, nodes, values);
}

void GraphRewriter::redirect(const ir::Function& callee, const std::map<jit::Node*, jit::Node*>& nodes,
                             const std::map<jit::Value*, jit::Value*>& values) {
  // The maps are keyed by the graph copied: the callee's own (the IR's origins), or a copy of it
  // the IR was redirected into. An earlier inlining of another call of the callee redirected the
  // IR into that caller: then its origins are the keys again.
  auto redirect_value = [&](const ir::Value* v) {
    if (v->origin == nullptr && !value_redirects_.count(v)) return;
    auto it = values.find(value_for(*v));
    if (it == values.end() && v->origin != nullptr)
      it = values.find(const_cast<jit::Value*>(static_cast<const jit::Value*>(v->origin)));
    if (it != values.end()) value_redirects_[v] = it->second;
  };
  for (const ir::Value* p : callee.body.params) redirect_value(p);
  ir::for_each_node(callee.body, [&](const ir::Node& n) {
    if (n.origin == nullptr && !node_redirects_.count(&n)) return;
    auto* origin = const_cast<jit::Node*>(static_cast<const jit::Node*>(n.origin));
    auto now = node_redirects_.find(&n);
    auto it = nodes.find(now != node_redirects_.end() ? now->second : origin);
    if (it == nodes.end() && origin != nullptr) it = nodes.find(origin);
    if (it != nodes.end()) node_redirects_[&n] = it->second;
    for (const ir::Value* out : n.outputs) redirect_value(out);
    for (const auto& block : n.blocks)
      for (const ir::Value* p : block->params) redirect_value(p);
  });
}

// jit::insertGraph clones the callee's nodes in order (nested blocks by Node::cloneFrom, in
// order too), right before the call: the counterparts are found by walking both in step.
void GraphRewriter::inline_call(const ir::Node& call_ir, const ir::Function& callee) {
  // Two edits of one fix inlining the same call (two comparisons in one helper): the callee's
  // nodes already lead to that copy.
  if (&call_ir == last_inlined_) return;
  jit::Node* call = node_for(call_ir);
  // A function's call passes the function first; a method's passes its module first, which is
  // the method's `self`.
  jit::Function* function = nullptr;
  if (call->kind() == c10::prim::CallFunction) {
    if (auto type = call->input(0)->type()->cast<c10::FunctionType>()) function = type->function();
  } else if (call->kind() == c10::prim::CallMethod) {
    if (auto cls = call->input(0)->type()->cast<c10::ClassType>()) function = &cls->getMethod(call->s(c10::attr::name));
  }
  if (function == nullptr || !function->isGraphFunction())
    throw ir::RewriteRefused("the call of `" + callee.name + "` is not a call of a TorchScript function or method");
  jit::Graph& from = *jit::toGraphFunction(*function).graph();
  jit::Graph& g = *call->owningGraph();
  std::unordered_map<jit::Value*, jit::Value*> value_map;
  jit::Node* before = call->prev();
  std::vector<jit::Value*> returned;
  {
    jit::WithInsertPoint guard(call);
    auto arguments = call->kind() == c10::prim::CallFunction ? call->inputs().slice(1) : call->inputs();
    returned = jit::insertGraph(g, from, arguments, value_map);
  }
  std::map<jit::Node*, jit::Node*> nodes;
  std::map<jit::Value*, jit::Value*> values(value_map.begin(), value_map.end());
  jit::Node* copy = before->next();
  for (jit::Node* original : from.nodes()) {
    if (copy == call) throw ir::RewriteRefused("the inlined copy of `" + callee.name + "` does not match it");
    nodes[original] = copy;
    for (size_t i = 0; i < original->blocks().size() && i < copy->blocks().size(); ++i)
      match_blocks(original->blocks()[i], copy->blocks()[i], nodes, values);
    copy = copy->next();
  }
  if (copy != call) throw ir::RewriteRefused("the inlined copy of `" + callee.name + "` does not match it");
  redirect(callee, nodes, values);
  jit::Node* function_constant = call->input(0)->node();
  for (size_t i = 0; i < call->outputs().size() && i < returned.size(); ++i) {
    call->output(i)->replaceAllUsesWith(returned[i]);
    value_redirects_[call_ir.outputs.at(i)] = returned[i];
  }
  destroy(call);
  if (function_constant->kind() == c10::prim::Constant) erase_candidates_.push_back(function_constant);
  last_inlined_ = &call_ir;
}

void GraphRewriter::unroll_loop(const ir::Node& loop_ir, int64_t trips) {
  jit::Node* loop = node_for(loop_ir);
  if (loop->kind() != c10::prim::Loop || loop->blocks().size() != 1)
    throw ir::RewriteRefused("the loop to unroll is not a TorchScript loop");
  jit::Block* body = loop->blocks()[0];
  jit::Graph& g = *loop->owningGraph();
  // The loop's inputs: trip count, condition, carried values; the body's: iteration number,
  // carried values; its outputs: condition, carried values.
  std::vector<jit::Value*> carried(loop->inputs().begin() + 2, loop->inputs().end());
  jit::WithInsertPoint guard(loop);
  for (int64_t i = 0; i < trips; ++i) {
    std::unordered_map<jit::Value*, jit::Value*> env;
    env[body->inputs()[0]] = g.insertConstant(i);
    for (size_t j = 0; j < carried.size(); ++j) env[body->inputs()[j + 1]] = carried[j];
    auto lookup = [&](jit::Value* v) {
      auto it = env.find(v);
      return it == env.end() ? v : it->second;
    };
    for (jit::Node* n : body->nodes()) {
      jit::Node* copy = g.insertNode(g.createClone(n, lookup));
      for (size_t k = 0; k < n->outputs().size(); ++k) env[n->outputs()[k]] = copy->outputs()[k];
    }
    for (size_t j = 0; j < carried.size(); ++j) carried[j] = lookup(body->outputs()[j + 1]);
  }
  for (size_t j = 0; j < carried.size(); ++j) loop->outputs()[j]->replaceAllUsesWith(carried[j]);
  destroy(loop);
}

// ---- LibTorch-level operations ----------------------------------------------------------------

jit::Node* GraphRewriter::insert_after(jit::Node* node, const std::string& op, const std::vector<jit::Value*>& inputs) {
  return insert_after_output(node, 0, op, inputs);
}

jit::Node* GraphRewriter::insert_after_output(jit::Node* node, size_t output, const std::string& op,
                                              const std::vector<jit::Value*>& inputs) {
  jit::Value* value = node->outputs().at(output);
  jit::Node* inserted = node->owningGraph()->create(c10::Symbol::fromQualString(op), inputs, 1);
  inserted->output()->setType(value->type());
  inserted->insertAfter(node);
  value->replaceAllUsesAfterNodeWith(inserted, inserted->output());
  return inserted;
}

jit::Node* GraphRewriter::insert_after_value(jit::Value* value, const std::string& op,
                                             const std::vector<c10::IValue>& constants) {
  jit::Graph& g = *value->owningGraph();
  // A parameter's node heads its block, so the node after it is the first one either way.
  jit::WithInsertPoint guard(value->node()->next());
  std::vector<jit::Value*> inputs = {value};
  for (const c10::IValue& constant : constants) inputs.push_back(g.insertConstant(constant));
  jit::Node* inserted = g.insertNode(g.create(c10::Symbol::fromQualString(op), inputs, 1));
  inserted->output()->setType(value->type());
  value->replaceAllUsesAfterNodeWith(inserted, inserted->output());
  return inserted;
}

jit::Node* GraphRewriter::replace_with(jit::Node* node, const std::string& op, const std::vector<jit::Value*>& inputs) {
  jit::Node* replacement = node->owningGraph()->create(c10::Symbol::fromQualString(op), inputs, 1);
  replacement->output()->setType(node->output()->type());
  replacement->insertAfter(node);
  node->output()->replaceAllUsesWith(replacement->output());
  destroy(node);
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
  destroy(node);
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

std::vector<jit::Module> GraphRewriter::instances_of_class(const jit::Module& module) {
  std::vector<jit::Module> instances;
  for (const auto& other : root_.named_modules())
    if (other.value.type() == module.type()) instances.push_back(other.value);
  return instances;
}

}  // namespace qlint::torchscript
