#include "rewriter/rewriter.h"

#include <fcntl.h>
#include <torch/csrc/jit/ir/ir.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "analysis/quant_domain.h"
#include "ir/torchscript/module_import.h"
#include "rewriter/source_suggestions.h"
#include "rules/registry.h"
#include "sim/libtorch.h"
#include "sim/report.h"

namespace qlint::rewriter {

namespace {

namespace jit = torch::jit;
namespace fs = std::filesystem;

// An edit that does not apply to this model; the fix is skipped and the reason reported.
struct EditSkipped : std::runtime_error {
  using std::runtime_error::runtime_error;
};

jit::Node* jit_node(const ir::Node* n) {
  return const_cast<jit::Node*>(static_cast<const jit::Node*>(n->origin));
}


// ---- Graph edits on the live module ----------------------------------------------------------

class GraphEditor {
 public:
  explicit GraphEditor(jit::Module root) : root_(std::move(root)) {}

  // Applies one edit; returns the attribute name of a stub it created, or "".
  std::string apply(const analysis::Facts& facts, const Edit& e) {
    switch (e.kind) {
      case Edit::Kind::Reroot: {
        reroot(e);
        if (!e.quantize_after_reroot) return "";
        return quantize(facts, *e.node, e.operand, false, e.template_stub, e.name_hint);
      }
      case Edit::Kind::QuantizeOperand:
        return quantize(facts, *e.node, e.operand, e.cast_to_float, e.template_stub, e.name_hint);
      case Edit::Kind::CloneStub:
        return clone_stub(*e.node, e.template_stub, e.name_hint);
      case Edit::Kind::CompareWithZero:
        compare_with_zero(*e.node, e.operand);
        return "";
    }
    return "";
  }

  // The view nodes a reroot bypassed, once nothing reads them any more.
  void remove_dead_chains() {
    bool removed = true;
    while (removed) {
      removed = false;
      for (auto it = dead_candidates_.begin(); it != dead_candidates_.end();) {
        bool unused = std::all_of((*it)->outputs().begin(), (*it)->outputs().end(),
                                  [](const jit::Value* v) { return v->uses().empty(); });
        if (!unused) {
          ++it;
          continue;
        }
        (*it)->destroy();
        it = dead_candidates_.erase(it);
        removed = true;
      }
    }
  }

 private:
  jit::Module module_at(const std::string& path) {
    for (const auto& m : root_.named_modules())
      if (m.name == path) return m.value;
    throw EditSkipped("the module `" + path + "` is not in the model");
  }

  // Adding a submodule changes the module's class; with several instances of one class,
  // the others would miss it.
  void require_own_class(const jit::Module& m, const std::string& path) {
    int instances = 0;
    for (const auto& other : root_.named_modules())
      if (other.value.type() == m.type()) ++instances;
    if (instances > 1)
      throw EditSkipped("the class of `" + (path.empty() ? std::string("self") : "self." + path) +
                        "` is shared by several module instances, so a stub cannot be added to one of them");
  }

  static std::string unique_name(const jit::Module& m, const std::string& base) {
    std::string name = base;
    for (int n = 1; m.hasattr(name); ++n) name = base + "_" + std::to_string(n);
    return name;
  }

  // Recomputes the view chain that feeds `operand` from the stub's float input.
  void reroot(const Edit& e) {
    jit::Node* consumer = jit_node(e.node);
    jit::Node* stub_call = jit_node(e.stub_call);
    std::vector<jit::Node*> chain;
    for (jit::Value* v = consumer->input(static_cast<size_t>(e.operand)); v != stub_call->output();) {
      jit::Node* p = v->node();
      if (!analysis::is_view_op(p->kind().toQualString()) || p->inputs().empty() || chain.size() > 64)
        throw EditSkipped("the compared value does not reach the stub through views only");
      chain.push_back(p);
      v = p->input(0);
    }
    jit::Graph& g = *consumer->owningGraph();
    jit::WithInsertPoint guard(consumer);
    jit::Value* current = stub_call->inputs().at(stub_call->inputs().size() - 1);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      jit::Node* original = *it;
      jit::Node* copy = g.createClone(original, [&](jit::Value* in) { return in == original->input(0) ? current : in; });
      copy->setSourceRange(original->sourceRange());
      g.insertNode(copy);
      current = copy->output();
    }
    consumer->replaceInput(static_cast<size_t>(e.operand), current);
    dead_candidates_.insert(dead_candidates_.end(), chain.begin(), chain.end());
  }

  // Passes `operand` of `consumer` through a new stub, cloned from `template_path`.
  std::string quantize(const analysis::Facts& facts, const ir::Node& consumer_ir, int operand, bool cast,
                       const std::string& template_path, const std::string& hint) {
    const ir::Function* fn = facts.function_of(consumer_ir);
    if (fn == nullptr) throw EditSkipped("the operation is not in a module method");
    jit::Module owner = module_at(fn->module_path);
    require_own_class(owner, fn->module_path);
    jit::Node* consumer = jit_node(&consumer_ir);
    jit::Graph& g = *consumer->owningGraph();
    jit::Value* self = g.inputs().empty() ? nullptr : g.inputs()[0];
    if (self == nullptr || self->type() != owner.type()) throw EditSkipped("the method's `self` is not its module");
    std::string name = unique_name(owner, hint + "_quant");
    owner.register_module(name, module_at(template_path).clone());

    jit::WithInsertPoint guard(consumer);
    const jit::SourceRange& range = consumer->sourceRange();
    jit::Value* value = consumer->input(static_cast<size_t>(operand));
    if (cast) {
      value = g.insert(c10::aten::to, {value, c10::IValue(static_cast<int64_t>(at::kFloat))});
      value->node()->setSourceRange(range);
    }
    jit::Value* stub = g.insertGetAttr(self, name);
    stub->node()->setSourceRange(range);
    jit::Node* call = g.create(c10::prim::CallMethod, {stub, value}, 1);
    call->s_(c10::attr::name, "forward");
    call->output()->setType(c10::TensorType::get());
    call->setSourceRange(range);
    g.insertNode(call);
    consumer->replaceInput(static_cast<size_t>(operand), call->output());
    return name;
  }

  // `x == c` becomes `logical_not(x == 0)`; `x != c` becomes `x == 0`.
  void compare_with_zero(const ir::Node& comparison_ir, int operand) {
    jit::Node* comparison = jit_node(&comparison_ir);
    jit::Graph& g = *comparison->owningGraph();
    jit::WithInsertPoint guard(comparison);
    const jit::SourceRange& range = comparison->sourceRange();
    jit::Value* is_zero = g.insert(c10::aten::eq, {comparison->input(static_cast<size_t>(operand)), int64_t{0}});
    is_zero->node()->setSourceRange(range);
    jit::Value* result = is_zero;
    if (comparison->kind() == c10::aten::eq) {
      result = g.insert(c10::aten::logical_not, {is_zero});
      result->node()->setSourceRange(range);
    }
    comparison->output()->replaceAllUsesWith(result);
    dead_candidates_.push_back(comparison);
  }

  // Points a stub call at a clone of its stub, registered beside it.
  std::string clone_stub(const ir::Node& call_ir, const std::string& stub_path, const std::string& hint) {
    jit::Node* call = jit_node(&call_ir);
    jit::Node* get = call->input(0)->node();
    if (get->kind() != c10::prim::GetAttr) throw EditSkipped("the stub is not read with a plain attribute access");
    auto dot = stub_path.rfind('.');
    std::string parent_path = dot == std::string::npos ? "" : stub_path.substr(0, dot);
    jit::Module parent = module_at(parent_path);
    require_own_class(parent, parent_path);
    std::string name = unique_name(parent, hint);
    parent.register_module(name, module_at(stub_path).clone());
    jit::Graph& g = *call->owningGraph();
    jit::WithInsertPoint guard(call);
    jit::Value* stub = g.insertGetAttr(get->input(0), name);
    stub->node()->setSourceRange(call->sourceRange());
    call->replaceInput(0, stub);
    return name;
  }

  jit::Module root_;
  std::vector<jit::Node*> dead_candidates_;
};

// ---- Planning ---------------------------------------------------------------------------------

std::string signature(const Diagnostic& d) {
  return d.rule + "@" + d.loc.file + ":" + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.column) + ":" +
         (d.node ? d.node->kind : "");
}

struct Planned {
  const Diagnostic* diagnostic;
  const Fix* fix;
};

// One fix per diagnostic; edits touching a node another planned fix edits wait for the next
// round (the rules re-run first, and the other fix may have made them moot).
std::vector<Planned> plan(const std::vector<Diagnostic>& diagnostics, bool unsafe, std::set<std::string>& done) {
  std::vector<Planned> planned;
  std::set<const ir::Node*> touched;
  for (const auto& d : diagnostics) {
    const Fix* fix = first_applicable_fix(d, unsafe);
    if (fix == nullptr || done.count(signature(d))) continue;
    bool conflict = std::any_of(fix->edits.begin(), fix->edits.end(), [&](const Edit& e) { return touched.count(e.node); });
    if (conflict) continue;
    for (const auto& e : fix->edits) touched.insert(e.node);
    done.insert(signature(d));
    planned.push_back({&d, fix});
  }
  return planned;
}

// ---- Verification -----------------------------------------------------------------------------


bool same_tensor(const at::Tensor& a, const at::Tensor& b) {
  return a.scalar_type() == b.scalar_type() && a.sizes() == b.sizes() && at::equal(a, b);
}

std::string float_difference(const std::vector<c10::IValue>& original, const std::vector<c10::IValue>& fixed) {
  for (size_t b = 0; b < original.size() && b < fixed.size(); ++b) {
    std::vector<at::Tensor> expected, actual;
    sim::flatten_tensors(original[b], expected);
    sim::flatten_tensors(fixed[b], actual);
    if (expected.size() != actual.size()) return "the fixed model returns a different number of tensors";
    for (size_t i = 0; i < expected.size(); ++i)
      if (!same_tensor(expected[i], actual[i]))
        return "float output " + std::to_string(i) + " differs on input batch " + std::to_string(b + 1);
  }
  return "";
}

std::string state_difference(const jit::Module& original, const jit::Module& fixed) {
  std::map<std::string, at::Tensor> kept;
  for (const auto& p : fixed.named_parameters(true)) kept[p.name] = p.value;
  for (const auto& b : fixed.named_buffers(true)) kept[b.name] = b.value;
  auto check = [&](const std::string& name, const at::Tensor& value) -> std::string {
    auto it = kept.find(name);
    if (it == kept.end()) return "`" + name + "` is missing from the fixed model";
    if (!same_tensor(value, it->second)) return "`" + name + "` changed";
    return "";
  };
  for (const auto& p : original.named_parameters(true))
    if (auto problem = check(p.name, p.value); !problem.empty()) return problem;
  for (const auto& b : original.named_buffers(true))
    if (auto problem = check(b.name, b.value); !problem.empty()) return problem;
  return "";
}

// Fills in `v` (whose `before` simulation is done already, when there are inputs).
void verify(Verification& v, const std::string& original_path, const std::string& fixed_path, const sim::Inputs& inputs,
            const sim::Options& sim_options) {
  jit::Module original = torchscript::load_torchscript(original_path);
  jit::Module fixed;
  try {
    fixed = jit::load(fixed_path);
  } catch (const c10::Error& e) {
    v.problem = "the fixed model does not load: " + torchscript::error_summary(e);
    return;
  }
  v.problem = state_difference(original, fixed);
  v.parameters_identical = v.problem.empty();
  if (inputs.files.empty() && inputs.random_shapes.empty()) return;
  v.ran = true;
  std::string float_problem = float_difference(sim::float_outputs(original_path, inputs, sim_options),
                                               sim::float_outputs(fixed_path, inputs, sim_options));
  v.float_identical = float_problem.empty();
  if (v.problem.empty()) v.problem = float_problem;
  v.after = sim::simulate(fixed_path, inputs, sim_options);
}

// A failpoint for the tests: QLINT_FAILPOINT=corrupt-fixed-output scales the fixed model's
// first output a little, so they can show that a fix failing verification is never written.
void apply_failpoint(jit::Module& module) {
  const char* failpoint = std::getenv("QLINT_FAILPOINT");
  if (failpoint == nullptr || std::string(failpoint) != "corrupt-fixed-output") return;
  auto graph = module.get_method("forward").graph();
  jit::Value* out = graph->outputs().at(0);
  if (!out->type()->cast<c10::TensorType>()) return;
  jit::WithInsertPoint guard(graph->return_node());
  graph->return_node()->replaceInput(0, graph->insert(c10::aten::mul, {out, 1.0001}));
}

// ---- Writing ----------------------------------------------------------------------------------

void sync_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

std::string temp_path_beside(const std::string& output) {
  fs::path out(output);
  fs::path dir = out.has_parent_path() ? out.parent_path() : fs::path(".");
  // Unique per process and per call: models are fixed on several threads at once.
  static std::atomic<int> counter{0};
  return (dir / ("." + out.filename().string() + ".qlint-" + std::to_string(::getpid()) + "-" +
                 std::to_string(counter++) + ".tmp"))
      .string();
}

struct TempFile {
  std::string path;
  ~TempFile() {
    std::error_code ec;
    if (!path.empty()) fs::remove(path, ec);
  }
};

}  // namespace

FixResult fix_model(const std::string& path, const FixOptions& options,
                    const std::function<std::string(const std::string&)>& display) {
  jit::Module module;
  try {
    module = torchscript::load_torchscript(path);
  } catch (const torchscript::ImportError& e) {
    throw FixError(path + ": " + e.what());
  }
  FixResult result;
  sim::Options sim_options;
  sim_options.bits = options.bits;
  sim_options.stubs = options.stubs;
  const bool simulate = !options.inputs.files.empty() || !options.inputs.random_shapes.empty();
  analysis::SimulationEvidence evidence;
  if (simulate) {
    try {
      result.verification.before = sim::simulate(path, options.inputs, sim_options);
    } catch (const sim::SimError& e) {
      throw FixError(std::string("cannot simulate the model: ") + e.what());
    }
    evidence = sim::evidence_from(result.verification.before);  // lets unsafe fixes see the data
  }
  SourceSuggestions suggestions;
  std::set<std::string> done;
  for (int round = 0;; ++round) {
    auto model = std::make_shared<ir::Model>(torchscript::import_module(module, path));
    auto facts = analysis::Facts::compute(*model, options.stubs, evidence);
    auto diagnostics = rules::run_all(facts);
    if (options.filter) diagnostics = options.filter(*model, std::move(diagnostics));
    if (round == 0) result.found = static_cast<int>(diagnostics.size());
    std::vector<Planned> planned = round < options.max_rounds ? plan(diagnostics, options.unsafe, done)
                                                              : std::vector<Planned>{};
    if (planned.empty()) {
      // Quant points inside the graph with a scale from module state: a traced QAT model.
      for (const auto& call : facts.quant_calls())
        if (const analysis::QuantPoint* p = facts.quant_point(call.point); p && p->node && p->scale)
          result.stored_scales = true;
      result.final_model = model;
      result.remaining = std::move(diagnostics);
      result.unsafe_held_back = unsafe_fixes_held_back(result.remaining, options.unsafe);
      break;
    }
    GraphEditor editor(module);
    for (const auto& [d, fix] : planned) {
      try {
        for (const Edit& e : fix->edits) {
          std::string stub = editor.apply(facts, e);
          suggestions.add(*model, e, stub);
          if (const ir::Function* fn = facts.function_of(*e.node)) result.rewritten_functions.insert(fn->name);
        }
        result.applied.push_back({d->rule, fix->description, d->loc, d->function ? d->function->name : ""});
      } catch (const EditSkipped& e) {
        result.skipped.push_back(d->rule + " at " + display(d->loc.file) + ":" + std::to_string(d->loc.line) + ": " + e.what());
      } catch (const c10::Error& e) {
        result.skipped.push_back(d->rule + " at " + display(d->loc.file) + ":" + std::to_string(d->loc.line) +
                                 ": LibTorch refused the edit: " + torchscript::error_summary(e));
      }
    }
    editor.remove_dead_chains();
  }
  result.python_diff = suggestions.diff(display);
  result.python_notes = suggestions.notes();
  if (result.applied.empty()) return result;

  apply_failpoint(module);
  std::string output = options.output.empty() ? path : options.output;
  TempFile temp{temp_path_beside(output)};
  try {
    module.save(temp.path);
  } catch (const c10::Error& e) {
    throw FixError(output + ": cannot write the fixed model: " + torchscript::error_summary(e));
  }
  try {
    verify(result.verification, path, temp.path, options.inputs, sim_options);
  } catch (const sim::SimError& e) {
    throw FixError(std::string("cannot verify the fix: ") + e.what());
  }
  if (!result.verification.problem.empty())
    throw FixError(path + ": the fixed model failed verification (" + result.verification.problem +
                   "); nothing was written");
  if (!options.write) return result;
  sync_file(temp.path);
  std::error_code ec;
  fs::rename(temp.path, output, ec);
  if (ec) throw FixError(output + ": cannot replace it: " + ec.message());
  temp.path.clear();
  sync_file(fs::path(output).has_parent_path() ? fs::path(output).parent_path().string() : ".");
  result.written = true;
  result.written_to = output;
  return result;
}

}  // namespace qlint::rewriter
