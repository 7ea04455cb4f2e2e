// reroot / reroot+quantize: a consumer that reads a view chain of a stub's output (`x[:, :, :,
// -1] == 1` after `x = self.quant(x)`) reads the same chain recomputed from the stub's float
// input instead, where the values are exact; with quantize_after_reroot the float value then
// gets a stub of its own (a float mask). Float results are unchanged: the stub is the identity.
#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <utility>
#include <vector>

#include "analysis/quant_domain.h"
#include "ir/display.h"
#include "ir/ops.h"
#include "ir/source_text.h"
#include "rewriter/edits/edit_kind.h"
#include "rewriter/source_suggestions.h"

namespace qlint::rewriter {

namespace {

// Builds the float shadow of the plan's values in the graph: a copy of each node reading float
// operands, right after the node it copies (so whatever it reads is defined there), extra
// arguments of the callees' copies, and twins carried by loops and returned by branches.
class ShadowBuilder {
 public:
  ShadowBuilder(const ir::Model& model, const Edit& edit, ir::GraphRewriter& graph)
      : model_(model), plan_(edit.shadow), graph_(graph) {}

  // Passes the float values each callee on the path needs as extra arguments of its copy, and
  // inlines the plan's call of a function called from several places on the way: after the
  // calls above it (whose copies then hold the inlined code) and before those inside it.
  void enter_calls() {
    const ir::Function* inlined = plan_.inline_call ? ir::callee_of(model_, *plan_.inline_call) : nullptr;
    if (plan_.inline_call != nullptr && inlined == nullptr)
      throw ir::RewriteRefused("the call to inline has no callee in the model");
    for (const ir::Node* call : plan_.calls) {
      if (inlined != nullptr && model_.function_of(*call) == inlined) inline_call(*std::exchange(inlined, nullptr));
      const ir::Function* callee = ir::callee_of(model_, *call);
      if (callee == nullptr) throw ir::RewriteRefused("a call on the way has no callee in the model");
      std::vector<const ir::Value*> needed;
      std::vector<ir::GraphValue> extra;
      const std::vector<ir::Value*> args = ir::call_arguments(*call);
      for (size_t i = 0; i < callee->body.params.size() && i < args.size(); ++i) {
        if (!plan_.params.count(callee->body.params[i])) continue;
        needed.push_back(callee->body.params[i]);
        extra.push_back(shadow(args[i]));
      }
      std::vector<ir::GraphValue> params = graph_.call_copy_with_extra_arguments(*call, *callee, extra);
      for (size_t i = 0; i < needed.size() && i < params.size(); ++i) shadows_[needed[i]] = params[i];
    }
    if (inlined != nullptr) inline_call(*inlined);
  }

  // There the callee's parameters are the call's arguments, and so are their twins.
  void inline_call(const ir::Function& callee) {
    graph_.inline_call(*plan_.inline_call, callee);
    const std::vector<ir::Value*> args = ir::call_arguments(*plan_.inline_call);
    for (size_t i = 0; i < callee.body.params.size() && i < args.size(); ++i)
      if (plan_.params.count(callee.body.params[i])) inlined_arguments_[callee.body.params[i]] = args[i];
  }

  // Each write in place the plan takes along (FloatShadowPlan::writes), copied right after itself
  // with its operands' twins: it writes into the twin's copy what the original writes into its
  // own, in the same order as every read of either.
  void copy_writes() {
    for (const ir::Node* write : plan_.writes) copy_write(*write);
  }

  ir::GraphValue shadow(const ir::Value* v) {
    if (!plan_.shadowed(v)) return graph_.value_of(*v);
    if (auto it = shadows_.find(v); it != shadows_.end()) return it->second;
    if (auto it = inlined_arguments_.find(v); it != inlined_arguments_.end()) return remember(v, shadow(it->second));
    // The twin of a value asks for its operands' twins first: a recursion as deep as the path
    // from the stub is long, bounded so that a hostile chain is a refused fix, not a crash.
    Depth depth(depth_);
    // A quant call passes its module, then the tensor; a trace's second call of a FakeQuantize
    // passes the first call's observer state after it (`forward1(x, min_val, ...)`).
    if (auto call = plan_.quant_outputs.find(v); call != plan_.quant_outputs.end())
      return remember(v, shadow(plan_.passed_through(*call->second)));
    const ir::Node* n = v->producer;
    const ir::Node* loop = n == nullptr && v->param_of ? v->param_of->owner : n;
    if (loop != nullptr && loop->kind == "prim::Loop") {
      carry_twins(*loop);
      return shadows_.at(v);
    }
    if (n == nullptr) throw ir::RewriteRefused("a parameter on the way has no float value");
    if (n->kind == "prim::If") {
      return_twins(*n);
      return shadows_.at(v);
    }
    if (plan_.returned.count(v)) {
      twins_returned_by(*n);
      return shadows_.at(v);
    }
    if (plan_.identity_calls.count(n)) return remember(v, shadow(plan_.passed_through(*n)));  // the identity in float
    if (auto back = plan_.handed_back.find(v); back != plan_.handed_back.end())
      return remember(v, shadow(back->second));
    if (plan_.writes.count(n)) {
      copy_write(*n);
      return shadows_.at(v);
    }
    std::vector<std::optional<ir::GraphValue>> inputs;
    for (const ir::Value* in : n->inputs)
      inputs.push_back(plan_.shadowed(in) ? std::optional<ir::GraphValue>(shadow(in)) : std::nullopt);
    // An operand's twin in a loop may need this very value's twin for the next iteration.
    if (auto it = shadows_.find(v); it != shadows_.end()) return it->second;
    std::vector<ir::GraphValue> outputs = graph_.insert_copy_after(*n, inputs);
    for (size_t i = 0; i < outputs.size() && i < n->outputs.size(); ++i) shadows_[n->outputs[i]] = outputs[i];
    graph_.erase_when_unused(*n);
    return shadows_.at(v);
  }

 private:
  // A write the plan takes along, copied once, right after itself, with its operands' twins.
  void copy_write(const ir::Node& write) {
    if (write.outputs.empty() || shadows_.count(write.outputs[0])) return;
    std::vector<std::optional<ir::GraphValue>> inputs;
    for (const ir::Value* in : write.inputs)
      inputs.push_back(plan_.shadowed(in) ? std::optional<ir::GraphValue>(shadow(in)) : std::nullopt);
    if (inputs.empty() || !inputs.front())
      throw ir::RewriteRefused("a write in place on the way has no float copy to write into");
    std::vector<ir::GraphValue> outputs = graph_.insert_copy_after(write, inputs);
    for (size_t i = 0; i < outputs.size() && i < write.outputs.size(); ++i) shadows_[write.outputs[i]] = outputs[i];
  }

  // The loop carries a twin of each value of the plan it carries: it starts as the twin of the
  // value the loop starts with and goes on as the twin of what the body returns. (The body's
  // parameters are the iteration number, then the carried values, returned in that order after
  // the condition; the loop's inputs are the trip count and the condition, then their starts.)
  void carry_twins(const ir::Node& loop) {
    const ir::Block& body = *loop.blocks.at(0);
    const std::vector<size_t> carried = planned(body.params, plan_.params);
    std::vector<ir::GraphValue> starts;
    for (size_t i : carried) starts.push_back(shadow(loop.inputs.at(i + 1)));
    std::vector<ir::GraphValue> after = graph_.add_loop_carried(loop, starts, [&](const auto& in_iteration) {
      remember_all(body.params, carried, in_iteration, 0);
      return shadows_of(body.returns, carried);
    });
    remember_all(loop.outputs, carried, after, 1);
  }

  // The branch returns a twin of each of its outputs in the plan, from each block.
  void return_twins(const ir::Node& branch) {
    const std::vector<size_t> twinned = planned(branch.outputs, plan_.block_outputs);
    std::vector<std::vector<ir::GraphValue>> per_block;
    for (const auto& block : branch.blocks) per_block.push_back(shadows_of(block->returns, twinned));
    remember_all(branch.outputs, twinned, graph_.add_branch_outputs(branch, per_block), 0);
  }

  // The call's callee (which holds the stub) gets a copy that also returns the twins.
  void twins_returned_by(const ir::Node& call) {
    const ir::Function* callee = ir::callee_of(model_, call);
    if (callee == nullptr) throw ir::RewriteRefused("a call on the way has no callee in the model");
    const std::vector<size_t> twinned = planned(call.outputs, plan_.returned);
    std::vector<ir::GraphValue> twins =
        graph_.call_copy_returning_more(call, *callee, [&] { return shadows_of(callee->body.returns, twinned); });
    remember_all(call.outputs, twinned, twins, 0);
  }

  // The positions of `values` that the plan twins (in `twinned`).
  static std::vector<size_t> planned(const std::vector<ir::Value*>& values, const std::set<const ir::Value*>& twinned) {
    std::vector<size_t> positions;
    for (size_t i = 0; i < values.size(); ++i)
      if (twinned.count(values[i])) positions.push_back(i);
    return positions;
  }

  std::vector<ir::GraphValue> shadows_of(const std::vector<ir::Value*>& values, const std::vector<size_t>& positions) {
    std::vector<ir::GraphValue> twins;
    for (size_t i : positions) twins.push_back(shadow(values.at(i)));
    return twins;
  }

  // The value at each of `positions` (less `offset`: a loop's outputs come one before its body's
  // parameters, which start with the iteration number) has the matching twin.
  void remember_all(const std::vector<ir::Value*>& values, const std::vector<size_t>& positions,
                    const std::vector<ir::GraphValue>& twins, size_t offset) {
    for (size_t k = 0; k < positions.size(); ++k) shadows_[values.at(positions[k] - offset)] = twins.at(k);
  }

  ir::GraphValue remember(const ir::Value* v, ir::GraphValue shadow) {
    shadows_[v] = shadow;
    return shadow;
  }

  static constexpr int kMaxPath = 20000;
  struct Depth {
    int& depth;
    explicit Depth(int& d) : depth(d) {
      if (++depth > kMaxPath) {
        --depth;
        throw ir::RewriteRefused("the float path from the stub is longer than " + std::to_string(kMaxPath) +
                                 " operations");
      }
    }
    ~Depth() { --depth; }
  };

  const ir::Model& model_;
  const analysis::FloatShadowPlan& plan_;
  ir::GraphRewriter& graph_;
  std::map<const ir::Value*, ir::GraphValue> shadows_;
  std::map<const ir::Value*, const ir::Value*> inlined_arguments_;  // an inlined callee's parameter -> argument
  int depth_ = 0;
};

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

using StubNames = SourceSuggestions::StubNames;

// How the Python source names the stub's output and its float input; nullopt, with a note,
// when it cannot.
std::optional<StubNames> stub_names(const ir::Model& model, const Edit& edit, SourceSuggestions& python,
                                    const std::string& here) {
  if (!edit.stub_call->loc.known()) {
    python.note(here + ": the model was traced, and traces record source lines but not expressions");
    return std::nullopt;
  }
  auto names = python.stub_names(model, *edit.stub_call);
  if (!names) python.note(here + ": the stub call is not a plain `name = self.stub(name)`");
  return names;
}

// Whether a Python rename at the value's producer reaches only the rerooted consumer: each
// value from there down to the consumer's operand is used on that path alone. (`is_pad =
// x[:, :, -1]` read by another line too: renaming `x` there would change that line as well.)
bool only_on_the_path(const std::vector<const ir::Value*>& path, const ir::Node& consumer) {
  for (size_t i = 0; i < path.size(); ++i) {
    const ir::Node* next = i == 0 ? &consumer : path[i - 1]->producer;
    for (const ir::Node* user : path[i]->users)
      if (user != next) return false;
  }
  return true;
}

bool within(const ir::SourceLoc& inner, const ir::SourceLoc& outer) {
  if (!inner.known() || inner.file != outer.file) return false;
  auto begin = [](const ir::SourceLoc& l) { return std::make_pair(l.line, l.column); };
  auto end = [](const ir::SourceLoc& l) { return std::make_pair(l.end_line, l.end_column); };
  return begin(outer) <= begin(inner) && end(inner) <= end(outer);
}

// Whether the leading name of `expression`'s source text (`pts` in `pts[:, 0]`) holds the
// value the rename stands for: the stub's output, or a parameter of a callee on the way. The
// name reads the value the expression's own ops start from, the first one made outside its
// text; after `pts = pts[keep]` that is the filtered tensor, whose float counterpart is not the
// stub's input.
bool name_reads_the_stub_output(const Edit& edit, const ir::Value* expression) {
  const ir::SourceLoc& text = expression->producer->loc;
  const ir::Value* read = expression;
  while (read->producer != nullptr && read->producer != edit.stub_call && !read->producer->inputs.empty() &&
         (read == expression || within(read->producer->loc, text)))
    read = read->producer->inputs[0];
  return read->producer == nullptr || read->producer == edit.stub_call;
}

// Whether `name`, the stub's float input (`x` in `q = self.quant(x)`), is assigned again after the
// stub call and before the line that would read it in the quantized value's place (the
// consumer, or the first call the value goes down): there it is another tensor.
bool assigned_again(const ir::Model& model, const Edit& edit, const std::string& name) {
  const ir::Node* reader = edit.shadow.calls.empty() ? edit.node : edit.shadow.calls.front();
  const ir::Function* fn = model.function_of(*edit.stub_call);
  const ir::SourceLoc& stub = edit.stub_call->loc;
  bool found = false;
  if (fn == nullptr) return false;
  ir::for_each_node(fn->body, [&](const ir::Node& n) {
    if (&n == edit.stub_call || n.loc.file != stub.file || n.loc.line <= stub.line || n.loc.line > reader->loc.line)
      return;
    for (const ir::Value* out : n.outputs)
      if (!out->name.empty() && !std::isdigit(static_cast<unsigned char>(out->name[0])) &&
          ir::display_name(out) == name)
        found = true;
  });
  return found;
}

// How many ops of the operand's computation (copied into the float shadow) read the quant
// call's output: `coords[:, 1] * grid + coords[:, 2]` reads it twice.
size_t reads_of_the_stub_output(const Edit& edit) {
  std::vector<const ir::Value*> pending = {edit.node->inputs.at(static_cast<size_t>(edit.operand))};
  std::set<const ir::Node*> seen;
  size_t reads = 0;
  while (!pending.empty() && seen.size() < 256) {
    const ir::Value* v = pending.back();
    pending.pop_back();
    const ir::Node* n = v->producer;
    if (n == nullptr || n == edit.stub_call || !edit.shadow.nodes.count(n) || !seen.insert(n).second) continue;
    for (const ir::Value* in : n->inputs) {
      if (in->producer == edit.stub_call) ++reads;
      pending.push_back(in);
    }
  }
  return reads;
}

// Renames the leading `from` of the consumer's operand expression (`x[:, :, :, -1]`) to `to`.
// When the variable holding it is read elsewhere too (`(1.0 - is_pad)` after `is_pad =
// x[:, :, -1]`), the consumer reads the renamed expression in its place instead
// (`(1.0 - tokens[:, :, -1])`), and the other readers keep the variable.
bool rename_operand_root(const ir::Model& model, const Edit& edit, const std::string& from, const std::string& to,
                         std::vector<std::function<void()>>& pending, SourceSuggestions& python,
                         const std::string& here) {
  const auto operand = static_cast<size_t>(edit.operand);
  // Only the leading name is renamed: a second read would stay quantized beside the float one.
  if (reads_of_the_stub_output(edit) > 1) {
    python.note(here + ": the operand reads `" + from + "` more than once; name `" + to + "` in each read of it");
    return false;
  }
  std::vector<const ir::Value*> path;
  for (const ir::Value* v = edit.node->inputs.at(operand);
       v && v->producer && v->producer != edit.stub_call && path.size() < 32;
       v = v->producer->inputs.empty() ? nullptr : v->producer->inputs[0]) {
    path.push_back(v);
    const ir::SourceLoc& loc = v->producer->loc;
    const std::string text = ir::source_text(model, loc);
    if (!starts_with_name(text, from)) continue;
    if (!name_reads_the_stub_output(edit, v)) {
      python.note(here + ": `" + from + "` at " + note_place(edit.node->loc) +
                  " may not be the quant point's output (it is assigned again, or made in a way the source does "
                  "not show), so the float input cannot be named in its place");
      return false;
    }
    if (only_on_the_path(path, *edit.node)) {
      ir::SourceLoc name_loc = loc;
      name_loc.end_column = loc.column + static_cast<int>(from.size());
      pending.push_back([&python, name_loc, to] { python.replace(name_loc.file, name_loc, to); });
      return true;
    }
    auto at = path.size() == 1 ? ir::variable_read_by(model, *edit.node, operand) : std::nullopt;
    if (at) {
      const std::string expression = to + text.substr(from.size());
      pending.push_back([&python, at = *at, expression] { python.replace(at.file, at, expression); });
      return true;
    }
    python.note(here + ": the value is also read quantized elsewhere, and its source names it only there");
    return false;
  }
  // The operand is the stub's output itself (`ids = x.long()`): the consumer's read of it is renamed.
  if (auto at = path.empty() ? ir::variable_read_by(model, *edit.node, operand) : std::nullopt) {
    pending.push_back([&python, at = *at, to] { python.replace(at.file, at, to); });
    return true;
  }
  python.note(here + ": no expression on the way from the quant point to the operand starts with `" + from +
              "`, which the rename in the source needs");
  return false;
}

// The parenthesised argument list of a call written on one line: the columns (0-based) of its
// brackets and of each top-level argument, and whether it is plain positional arguments.
struct ArgumentList {
  size_t open = 0, close = 0;
  std::vector<std::pair<size_t, size_t>> arguments;  // [begin, end) of each, trimmed
  bool positional_only = true;
};

std::optional<ArgumentList> argument_list(const std::string& line, size_t from) {
  ArgumentList list;
  list.open = line.find('(', from);
  if (list.open == std::string::npos || line.find_first_not_of(' ', from) != list.open) return std::nullopt;
  int depth = 0;
  size_t start = list.open + 1;
  auto add = [&](size_t end) {
    size_t b = line.find_first_not_of(' ', start), e = line.find_last_not_of(' ', end - 1);
    if (b != std::string::npos && b < end && e >= b) list.arguments.emplace_back(b, e + 1);
  };
  for (size_t i = list.open + 1; i < line.size(); ++i) {
    char c = line[i];
    if (c == '"' || c == '\'') return std::nullopt;  // strings: not worth the risk
    if (c == '(' || c == '[' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '}') && depth-- == 0) {
      add(i);
      list.close = i;
      return list;
    }
    if (depth == 0 && c == ',') {
      add(i);
      start = i + 1;
    }
    if (depth == 0 && (c == '*' || (c == '=' && line[i + 1] != '=' && line[i - 1] != '=' && line[i - 1] != '!' &&
                                    line[i - 1] != '<' && line[i - 1] != '>')))
      list.positional_only = false;
  }
  return std::nullopt;
}

// Inserts `, text` after the last argument of the list.
void append_argument(SourceSuggestions& python, const std::string& file, int line, const ArgumentList& list,
                     const std::string& text) {
  ir::SourceLoc at;
  at.file = file;
  at.line = at.end_line = line;
  at.column = at.end_column = static_cast<int>(list.close) + 1;
  python.replace(file, at, (list.arguments.empty() ? "" : ", ") + text);
}

// The line of `def name(` above the first line of a callee's body: its file (which may be another
// than the call's: a layer class imported from a module of its own), number and text.
struct DefLine {
  std::string file;
  int line = 0;
  std::string text;
};

std::optional<DefLine> def_line(SourceSuggestions& python, const ir::Function& callee, const std::string& name) {
  int first = 0;
  std::string file;
  ir::for_each_node(callee.body, [&](const ir::Node& n) {
    if (first == 0 && n.loc.known()) first = n.loc.line, file = n.loc.file;
  });
  const std::regex def(R"(^\s*def\s+)" + name + R"(\s*\()");
  const std::vector<std::string>* lines = file.empty() ? nullptr : python.lines(file);
  for (int line = first; lines != nullptr && line > 0 && line > first - 200; --line) {
    if (static_cast<size_t>(line) > lines->size()) continue;
    const std::string& text = (*lines)[static_cast<size_t>(line) - 1];
    if (std::regex_search(text, def)) return DefLine{file, line, text};
  }
  return std::nullopt;
}

// A function's or method's code serves its other calls, also those an earlier round inlined
// (their copies carry its source lines).
bool inlined_elsewhere(const ir::Model& model, const ir::Function& callee) {
  std::set<std::pair<std::string, int>> lines;
  ir::for_each_node(callee.body, [&](const ir::Node& n) {
    if (n.loc.known()) lines.emplace(n.loc.file, n.loc.line);
  });
  bool found = false;
  for (const auto& fn : model.functions)
    if (fn.get() != &callee && !found)
      ir::for_each_node(fn->body, [&](const ir::Node& n) { found = found || lines.count({n.loc.file, n.loc.line}); });
  return found;
}

// Whether the callee's Python code serves other module instances or calls too, which would
// miss the argument their calls do not pass.
bool shared_python_code(const ir::Model& model, const ir::Function& callee) {
  if (inlined_elsewhere(model, callee)) return true;
  if (callee.module_path.empty()) return false;
  const ir::ModuleInfo* module = model.find_module(callee.module_path);
  if (module == nullptr) return true;
  return std::count_if(model.modules.begin(), model.modules.end(),
                       [&](const ir::ModuleInfo& m) { return m.class_name == module->class_name; }) > 1;
}

// Passes the float value down the calls of the plan in Python: an extra argument at each call
// site (`self.head(x.view(...), x_float.view(...))`) and an extra parameter on each callee
// (`def forward(self, feats, feats_float):`). Returns the names the consumer then renames.
// The edits are collected first and made only when every call and the consumer allow them, so
// that a suggestion never passes an argument no parameter takes.
std::optional<StubNames> pass_down_calls(const ir::Model& model, const Edit& edit, StubNames names,
                                         std::vector<std::function<void()>>& pending, SourceSuggestions& python,
                                         const std::string& here) {
  for (const ir::Node* call : edit.shadow.calls) {
    const ir::Function* callee = ir::callee_of(model, *call);
    if (callee == nullptr || !call->loc.known()) {
      python.note(here + ": the archive records no source range for a call on the way");
      return std::nullopt;
    }
    std::vector<size_t> needed;
    for (size_t i = 0; i < callee->body.params.size(); ++i)
      if (edit.shadow.params.count(callee->body.params[i])) needed.push_back(i);
    const std::string* text = model.source_line(call->loc.file, call->loc.line);
    auto list = text ? argument_list(*text, static_cast<size_t>(call->loc.end_column - 1)) : std::nullopt;
    const size_t position = needed.empty() ? 0 : needed[0] - (call->kind == "prim::CallMethod" ? 1 : 0);
    if (needed.size() != 1 || !list || !list->positional_only || position + 1 != list->arguments.size()) {
      python.note(here + ": the call at " + note_place(call->loc) +
                  " does not pass the value as its last plain argument");
      return std::nullopt;
    }
    const auto [begin, end] = list->arguments[position];
    const std::string argument = text->substr(begin, end - begin);
    // A method's Python name is the call's; a free function's, the last part of its qualified name.
    const std::string method = ir::source_function_name(
        call->kind == "prim::CallMethod" && call->attr("name") ? call->attr("name")->s : callee->name);
    auto def = def_line(python, *callee, method.substr(method.rfind('.') + 1));
    auto params = def ? argument_list(def->text, def->text.find('(')) : std::nullopt;
    const std::string param = ir::display_name(callee->body.params[needed[0]]);
    if (!starts_with_name(argument, names.quantized) || !params || !params->positional_only || param.empty() ||
        shared_python_code(model, *callee)) {
      python.note(here + ": the value passes through a call qlint cannot rewrite in Python (at " +
                  note_place(call->loc) + ")");
      return std::nullopt;
    }
    const std::string file = call->loc.file;
    const int line = call->loc.line;
    const std::string passed = names.floating + argument.substr(names.quantized.size());
    pending.push_back(
        [&python, file, line, list = *list, passed] { append_argument(python, file, line, list, passed); });
    // The new parameter is annotated as the one it shadows (`feats: torch.Tensor`).
    std::string annotation;
    if (needed[0] < params->arguments.size()) {
      const auto [from, to] = params->arguments[needed[0]];
      const std::string declared = def->text.substr(from, to - from);
      if (size_t colon = declared.find(':'); colon != std::string::npos) annotation = declared.substr(colon);
    }
    pending.push_back(
        [&python, file = def->file, line = def->line, list = *params, declaration = param + "_float" + annotation] {
          append_argument(python, file, line, list, declaration);
        });
    names = StubNames{param, param + "_float", "", 0};
  }
  return names;
}

// A helper called from several places: the archive inlines one call per round; Python keeps one
// helper, which would take the float tensor too at every call.
std::string inlined_helper_note(const ir::Model& model, const Edit& edit, const std::string& here) {
  const ir::Node& call = *edit.shadow.inline_call;
  const ir::Function* helper = ir::callee_of(model, call);
  std::string name = "the helper";
  if (helper != nullptr) {
    // A method by its class (`Layer.forward`), a function by its own name.
    const size_t last = helper->name.rfind('.');
    const size_t cut = call.kind == "prim::CallMethod" && last != std::string::npos && last > 0
                           ? helper->name.rfind('.', last - 1)
                           : last;
    name = ir::source_function_name(cut == std::string::npos ? helper->name : helper->name.substr(cut + 1));
  }
  const ir::Function* caller = model.function_of(call);
  const std::string at = call.loc.known() || caller == nullptr ? "at " + note_place(call.loc)
                                                               : "in `" + ir::source_function_name(caller->name) + "`";
  return here + ": `" + name + "` is called from several places, so its parameter has no one float counterpart; " +
         "the rewritten archive inlines its call " + at +
         " (and each other call in a round of its own) and compares the float value there; in Python, give `" + name +
         "` the float tensor as well, as an extra parameter passed at every call, and compare that";
}

// Whether the operand is the quant point's output, dequantized at most: the same values in float.
bool only_dequantized(const Edit& edit) {
  const ir::Value* v = edit.node->inputs.at(static_cast<size_t>(edit.operand));
  for (int depth = 0; v != nullptr && v->producer != nullptr && depth < 8; ++depth) {
    if (v->producer == edit.stub_call) return true;
    if (!analysis::is_dequantize_op(v->producer->kind) || v->producer->inputs.empty()) return false;
    v = v->producer->inputs[0];
  }
  return false;
}

class Reroot final : public EditKind {
 public:
  std::string test_name(const Edit& edit) const override {
    return edit.quantize_after_reroot ? "reroot+quantize" : "reroot";
  }

  void apply(const ir::Model& model, const Edit& edit, ir::GraphRewriter& graph) const override {
    ShadowBuilder shadows(model, edit, graph);
    shadows.enter_calls();
    const ir::Node& consumer = *edit.node;
    const auto operand = static_cast<size_t>(edit.operand);
    graph.replace_input(consumer, operand, shadows.shadow(consumer.inputs.at(operand)));
    shadows.copy_writes();
    if (edit.quantize_after_reroot) quantize_operand_kind().apply(model, quantize_part(edit), graph);
    // A stub call the reroot leaves unread (`self.quant(b).long()`, now `b.long()`) quantizes
    // nothing: it goes, or calibrating the model again would still take `b` into the scale the
    // stub gives its other tensors. Across calls, the call's node may be one an inlining replaced.
    if (!edit.shadow.crosses_calls() && edit.shadow.inline_call == nullptr) graph.erase_when_unused(*edit.stub_call);
  }

  void render_python(const ir::Model& model, const Edit& edit, SourceSuggestions& python) const override {
    const std::string here = "no Python suggestion for the rewrite at " + note_place(edit.node->loc);
    if (edit.shadow.inline_call != nullptr) return python.note(inlined_helper_note(model, edit, here));
    if (!edit.shadow.crosses_calls() && !ir::same_python_function(*edit.stub_call, *edit.node)) {
      python.note(here + ": the stub call is in another Python function, whose float input this one cannot name");
      return;
    }
    if (!edit.shadow.returned.empty()) {
      python.note(here + ": the value comes back from a call into the module or function that holds the stub, " +
                  "which would have to return its float twin too; the rewritten archive does");
      return;
    }
    if (edit.shadow.crosses_blocks()) {
      python.note(here + ": the value is carried by a loop or comes out of a branch, and the Python change would " +
                  "have to repeat its computation in float beside it; the rewritten archive has that twin");
      return;
    }
    if (!edit.shadow.identity_calls.empty() || !edit.shadow.handed_back.empty()) {
      python.note(here +
                  ": the value passes through calls that leave it unchanged in float (other stub calls, or a call that "
                  "hands it back), which the Python change would have to skip too");
      return;
    }
    if (edit.quantize_after_reroot && !python.self_module(model, *edit.node)) return;
    std::vector<std::function<void()>> pending;
    auto names = stub_names(model, edit, python, here);
    if (names && !names->alias.empty())
      pending.push_back([&python, file = edit.stub_call->loc.file, line = names->alias_line, text = names->alias] {
        python.insert_line_before(file, line, text);
      });
    if (names && names->alias.empty() && assigned_again(model, edit, names->floating)) {
      python.note(here + ": `" + names->floating + "`, the stub's float input, is assigned again before " +
                  note_place(edit.node->loc) + ", so the source cannot read it there");
      return;
    }
    if (names) names = pass_down_calls(model, edit, *names, pending, python, here);
    if (!names || !rename_operand_root(model, edit, names->quantized, names->floating, pending, python, here)) return;
    for (const auto& make : pending) make();
    if (edit.quantize_after_reroot) quantize_operand_kind().render_python(model, quantize_part(edit), python);
  }

  // Why the fix cannot read the quantize call's input, and what the user can do: an input with no
  // name (`npu::quantize(torch::cat({feat, mask}, 1))`, public round 19) named by a variable of its
  // own, which --fix then reads from (`packed.index({Slice(), -1}) != 1`).
  static std::string unnamed_input(const ir::Model& model, const ir::Node& stub_call) {
    const ir::Attr* text = stub_call.attr("input_text");
    if (text == nullptr || text->kind != ir::Attr::Kind::Str)
      return ": the quantize call's input is not a variable this code can name";
    const std::string name = unused_name(model, stub_call);
    const ir::Attr* call = stub_call.attr("quantize_call");
    const std::string quantized =
        call != nullptr && call->kind == ir::Attr::Kind::Str ? call->s + "(" + name + ")" : name;
    return ": the quantize call's input, `" + text->s + "`, has no name to read its float values by; name it " +
           "before the call (`torch::Tensor " + name + " = " + text->s + ";`, then `" + quantized +
           "`), and --fix then reads the float `" + name + "` here";
  }

  // A name for the quantize call's input that the function does not use yet (public round 18
  // C++: `auto packed = at::quantize_per_tensor(torch::cat(...))` was told to declare `packed`).
  static std::string unused_name(const ir::Model& model, const ir::Node& stub_call) {
    const ir::Function* fn = model.function_of(stub_call);
    const std::string* line =
        stub_call.loc.known() ? model.source_line(stub_call.loc.file, stub_call.loc.line) : nullptr;
    auto taken = [&](const std::string& name) {
      if (line != nullptr && line->find(name) != std::string::npos) return true;
      if (fn == nullptr) return false;
      return std::any_of(fn->values.begin(), fn->values.end(), [&](const std::unique_ptr<ir::Value>& v) {
        return v->name == name || v->name.rfind(name + ".", 0) == 0;
      });
    };
    for (const char* name : {"packed", "packed_float", "joined_float"})
      if (!taken(name)) return name;
    return "float_input";
  }

  // C++: the operand names the quantized variable (`x.index(...) == 1`); it reads the variable
  // the quantize call took instead (`input.index(...) == 1`), which the C++ front end recorded
  // when that variable keeps its value through the function.
  void render_cxx(const ir::Model& model, const Edit& edit, SourceSuggestions& cxx) const override {
    const std::string here = "no C++ fix for the finding at " + note_place(edit.node->loc);
    // A TorchScript model's outputs: no quantize call in the C++ to read around; the float
    // value exists only inside the model.
    if (edit.stub_call->attr("model_outputs") != nullptr)
      return cxx.note(here +
                      ": the value is a TorchScript model's output, quantized inside the model; the fix "
                      "belongs in the model (compare or cast before its quantization, and return that)");
    const ir::Attr* input = edit.stub_call->attr("input_name");
    if (edit.shadow.crosses_calls() || !edit.shadow.identity_calls.empty() || !edit.shadow.handed_back.empty() ||
        model.function_of(*edit.stub_call) != model.function_of(*edit.node) || edit.stub_call->outputs.empty())
      return cxx.note(here + ": the quantize call's input is not a variable this code can name");
    if (input == nullptr) return cxx.note(here + unnamed_input(model, *edit.stub_call));
    // `y = quantize(x, ...).dequantize(); y == 1`: y's float counterpart is x itself, so the
    // comparison reads x, and y keeps its quantized value for its other uses.
    if (only_dequantized(edit))
      if (auto at = ir::variable_read_by(model, *edit.node, static_cast<size_t>(edit.operand))) {
        cxx.replace(at->file, *at, input->s);
        return;
      }
    const std::string quantized = ir::display_name(edit.stub_call->outputs[0]);
    if (quantized.empty())
      return cxx.note(here + ": the quantize call's result is used without a name, which the fix would rename");
    std::vector<std::function<void()>> pending;
    if (!rename_operand_root(model, edit, quantized, input->s, pending, cxx, here)) return;
    for (const auto& make : pending) make();
    if (edit.quantize_after_reroot) quantize_operand_kind().render_cxx(model, quantize_part(edit), cxx);
  }
};

}  // namespace

const EditKind& reroot_kind() {
  static const Reroot kind;
  return kind;
}

}  // namespace qlint::rewriter
