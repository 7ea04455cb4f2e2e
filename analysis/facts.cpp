#include "analysis/facts.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <iterator>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "analysis/cat_items.h"
#include "analysis/constants.h"
#include "analysis/dtype.h"
#include "analysis/quant_domain.h"
#include "ir/large_stack.h"
#include "ir/ops.h"
#include "ir/schema.h"

namespace qlint::analysis {

std::string normalize_class_name(const std::string& torchscript_name) {
  // Every `___torch_mangle_<digits>.` dropped (a regex did this, at a tenth of the analysis' time).
  static const std::string mangle = "___torch_mangle_";
  std::string name;
  name.reserve(torchscript_name.size());
  for (size_t at = 0; at < torchscript_name.size();) {
    if (torchscript_name.compare(at, mangle.size(), mangle) == 0) {
      size_t end = at + mangle.size();
      while (end < torchscript_name.size() && std::isdigit(static_cast<unsigned char>(torchscript_name[end]))) ++end;
      if (end > at + mangle.size() && end < torchscript_name.size() && torchscript_name[end] == '.') {
        at = end + 1;
        continue;
      }
    }
    name += torchscript_name[at++];
  }
  const std::string prefix = "__torch__.";
  if (name.rfind(prefix, 0) == 0) name = name.substr(prefix.size());
  return name;
}

bool class_name_matches(const std::string& configured, const std::string& normalized) {
  if (configured.empty() || configured.size() > normalized.size()) return false;
  size_t start = normalized.size() - configured.size();
  return normalized.compare(start, configured.size(), configured) == 0 && (start == 0 || normalized[start - 1] == '.');
}

std::string describe(const SimulatedRun& run) {
  return run.width + " simulation on " + std::to_string(run.batches) + (run.random_inputs ? " random" : "") +
         (run.batches == 1 ? " input batch" : " input batches");
}

std::string describe(const QuantPoint& point, const ir::SourceLoc& here) {
  if (point.line <= 0) return quoted_display(point.display);
  ir::SourceLoc at;
  at.file = here.file.empty() ? "" : point.file;  // nothing to tell it from: "line N" as before
  at.line = point.line;
  return quoted_display(point.display) + " on " + ir::line_seen_from(at, here);
}

std::string quoted_display(const std::string& display) {
  // A C++ program's model run (cxx lowering's stub_call): prose around the archive's path.
  const std::string model = "the TorchScript model ";
  if (display.rfind(model, 0) == 0) return model + "`" + display.substr(model.size()) + "`";
  return "`" + display + "`";
}

// Eager-mode QAT wraps the real quantizer in a submodule of the stub; name it after the stub.
std::string module_quant_point_display(std::string path) {
  const std::string suffix = ".activation_post_process";
  if (path.size() > suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
    path.resize(path.size() - suffix.size());
  return "self." + path;
}

std::optional<std::string> attribute_key(const ir::Node& n) {
  const ir::Attr* name = n.attr("name");
  if ((n.kind != "prim::GetAttr" && n.kind != "prim::SetAttr") || n.inputs.empty() || name == nullptr ||
      name->kind != ir::Attr::Kind::Str)
    return std::nullopt;
  const ir::Type& owner = n.inputs[0]->type;
  if (owner.kind == ir::Type::Kind::Module) return owner.name + "." + name->s;
  if (owner.kind == ir::Type::Kind::Other && owner.name.rfind("__torch__.", 0) == 0)
    return "object " + owner.name + "." + name->s;
  return std::nullopt;
}

namespace {

// An op as users write it: aten::quantize_per_tensor is torch.quantize_per_tensor; quantized
// kernels keep their namespace (torch.ops.quantized.add).
std::string op_display(const std::string& kind) {
  if (kind.rfind("aten::", 0) == 0) return "torch." + kind.substr(6);
  if (kind.rfind("quantized::", 0) == 0) return "torch.ops.quantized." + kind.substr(11);
  return kind;
}

std::optional<int64_t> int_constant(const ir::Value* v) {
  auto c = scalar_constant(v);
  if (!c) return std::nullopt;
  return static_cast<int64_t>(*c);
}

}  // namespace

// Forward dataflow over all functions at once: call sites feed callee parameters, callee
// returns feed call outputs, and If/Loop blocks join their branches. Facts only grow (dtypes
// towards Unknown, sets towards larger, flags towards true), so repeating whole passes reaches
// a fixpoint.
class FactsSolver {
 public:
  using ValueFacts = Facts::ValueFacts;
  // One store into a container (`d["k"] = v`, `l.append(v)`).
  struct Store {
    std::string key;  // "" when not known statically
    ValueFacts::Element element;
  };

  FactsSolver(Facts& facts, const StubClasses& stubs, const SimulationEvidence& evidence)
      : facts_(facts), stubs_(stubs), calibration_(evidence.calibration), input_dtypes_(evidence.input_dtypes) {}

  void run() {
    classify_stub_modules();
    read_stated_parameters();
    map_blocks();
    find_traced_dequantized();
    find_written_attributes();
    fold_fixed_branches();
    number_repeated_calls();
    seed_model_inputs();
    // A call runs its callee's body first (once per pass, at the first call reached), so one pass
    // carries facts through a whole chain of calls; later passes settle loops, later call sites
    // and recursion. The cap only guards against bugs.
    // Functions nobody calls go first, so that a pass reaches each callee from its caller (in
    // model order, a callee listed before its caller would get its caller's facts a pass later).
    std::vector<const ir::Function*> order = callers_first();
    for (int pass = 0; pass < 100; ++pass) {
      changed_ = false;
      for (const ir::Function* f : order)
        if (auto it = visited_in_pass_.find(f); it == visited_in_pass_.end() || it->second != pass_) block(f->body);
      if (!changed_) break;
      ++pass_;
    }
    facts_.solver_passes_ = pass_ + 1;
    flatten_containers();
    collect_quant_calls();
    apply_calibration();
  }

 private:
  std::vector<const ir::Function*> callers_first() const {
    std::unordered_set<const ir::Function*> called;
    for (const auto& f : facts_.model_->functions)
      ir::for_each_node(f->body, [&](const ir::Node& n) {
        if (const ir::Function* callee = ir::callee_of(*facts_.model_, n); callee && callee != f.get())
          called.insert(callee);
      });
    std::vector<const ir::Function*> order;
    for (bool roots : {true, false})
      for (const auto& f : facts_.model_->functions)
        if (called.count(f.get()) != roots) order.push_back(f.get());
    return order;
  }

  void classify_stub_modules() {
    for (const auto& m : facts_.model_->modules) {
      std::string cls = normalize_class_name(m.class_name);
      auto matches = [&](const std::vector<std::string>& names) {
        return std::any_of(names.begin(), names.end(),
                           [&](const std::string& name) { return class_name_matches(name, cls); });
      };
      if (matches(stubs_.quant)) {
        facts_.stub_modules_[m.path] = StubKind::Quant;
        QuantPoint& p = facts_.quant_points_[m.path];
        p.id = m.path;
        p.display = m.display.empty() ? module_quant_point_display(m.path) : m.display;
        p.line = m.line;
      } else if (matches(stubs_.dequant)) {
        facts_.stub_modules_[m.path] = StubKind::DeQuant;
      }
    }
  }

  // What the C++ front end states on a quantizing call (as attributes of the stub call): the
  // scale, zero point and range of `at::quantize_per_tensor(x, 0.05, 0, torch::kQInt8)`, or that
  // the call stands for a TorchScript model's outputs.
  void read_stated_parameters() {
    for (const auto& f : facts_.model_->functions)
      ir::for_each_node(f->body, [&](const ir::Node& n) {
        if (facts_.stub_call(n) != StubKind::Quant) return;
        QuantPoint& p = facts_.quant_points_[n.inputs[0]->type.name];
        if (const ir::Attr* outputs = n.attr("model_outputs"); outputs && outputs->kind == ir::Attr::Kind::Bool)
          p.model_outputs = outputs->b;
        const ir::Attr* scale = n.attr("scale");
        if (scale == nullptr || scale->kind != ir::Attr::Kind::Float) return;
        p.scale = scale->f;
        auto integer = [&](const char* name, int64_t& field) {
          if (const ir::Attr* a = n.attr(name); a != nullptr && a->kind == ir::Attr::Kind::Int) field = a->i;
        };
        integer("zero_point", p.zero_point);
        integer("quant_min", p.quant_min);
        integer("quant_max", p.quant_max);
      });
  }

  void find_written_attributes() {
    for (const auto& f : facts_.model_->functions)
      ir::for_each_node(f->body, [&](const ir::Node& n) {
        if (n.kind != "prim::SetAttr") return;
        if (auto key = attribute_key(n)) written_.insert(*key);
      });
  }

  void fold_fixed_branches() {
    for (const auto& f : facts_.model_->functions)
      ir::for_each_node(f->body, [&](const ir::Node& n) {
        if (n.kind != "prim::If" || n.blocks.size() != 2 || n.inputs.empty()) return;
        if (auto condition = fixed_number(n.inputs[0], 0)) facts_.folded_branches_[&n] = *condition != 0 ? 0 : 1;
      });
  }

  // A number (bools as 0/1) that no input can change: a constant, or a module attribute as the
  // archive holds it that forward never assigns, and comparisons and `not` of such numbers.
  std::optional<double> fixed_number(const ir::Value* v, int depth) const {
    const ir::Node* p = v->producer;
    if (p == nullptr || depth > 16 || p->outputs.size() != 1) return std::nullopt;
    if (p->kind == "prim::GetAttr" && is_training_flag(*p)) return 0;
    if (p->kind == "prim::Constant" || p->kind == "prim::GetAttr") {
      const ir::Attr* value = p->attr("value");
      if (value == nullptr || (p->kind == "prim::GetAttr" && !fixed_attribute(*p))) return std::nullopt;
      if (value->kind == ir::Attr::Kind::Bool) return value->b ? 1 : 0;
      if (value->kind == ir::Attr::Kind::Int) return static_cast<double>(value->i);
      if (value->kind == ir::Attr::Kind::Float) return value->f;
      return std::nullopt;
    }
    if ((p->kind == "aten::__not__" || p->kind == "aten::Bool") && p->inputs.size() == 1) {
      auto inner = fixed_number(p->inputs[0], depth + 1);
      if (!inner) return std::nullopt;
      return p->kind == "aten::__not__" ? (*inner == 0 ? 1 : 0) : (*inner != 0 ? 1 : 0);
    }
    if (p->inputs.size() != 2 || p->inputs[0]->type.is_tensor() || p->inputs[1]->type.is_tensor()) return std::nullopt;
    static const std::map<std::string, bool (*)(double, double)> comparisons = {
        {"aten::eq", [](double a, double b) { return a == b; }},
        {"aten::ne", [](double a, double b) { return a != b; }},
        {"aten::lt", [](double a, double b) { return a < b; }},
        {"aten::le", [](double a, double b) { return a <= b; }},
        {"aten::gt", [](double a, double b) { return a > b; }},
        {"aten::ge", [](double a, double b) { return a >= b; }}};
    auto compare = comparisons.find(p->kind);
    if (compare == comparisons.end()) return std::nullopt;
    auto a = fixed_number(p->inputs[0], depth + 1);
    auto b = a ? fixed_number(p->inputs[1], depth + 1) : std::nullopt;
    if (!b) return std::nullopt;
    return compare->second(*a, *b) ? 1 : 0;
  }

  // `self.training`: false, whatever the archive saved (a QAT model is often saved in training
  // mode). A quantized model is deployed in eval mode, and qlint simulates it so.
  bool is_training_flag(const ir::Node& get) const {
    const ir::Attr* name = get.attr("name");
    return name != nullptr && name->kind == ir::Attr::Kind::Str && name->s == "training" && fixed_attribute(get);
  }

  // A module attribute read whose value the archive fixes: not one forward assigns.
  bool fixed_attribute(const ir::Node& get) const {
    const ir::Attr* name = get.attr("name");
    auto key = attribute_key(get);
    return name != nullptr && name->kind == ir::Attr::Kind::Str && key && written_.count(*key) == 0;
  }

  // Measured parameters replace what the model states: they are what the deployed model gets.
  void apply_calibration() {
    for (auto& [id, point] : facts_.quant_points_) {
      auto it = calibration_.find(id);
      if (it == calibration_.end()) continue;
      point.scale = it->second.scale;
      point.zero_point = it->second.zero_point;
      point.quant_min = it->second.quant_min;
      point.quant_max = it->second.quant_max;
    }
  }

  void map_blocks() {
    for (const auto& f : facts_.model_->functions) {
      facts_.block_function_[&f->body] = f.get();
      ir::for_each_node(f->body, [&](const ir::Node& n) {
        program_order_[&n] = program_order_.size();
        for (const auto& b : n.blocks) facts_.block_function_[b.get()] = f.get();
      });
    }
  }

  // A trace records a DeQuantStub's call without its tensor (`dq.forward()`: the stub returns
  // its input itself, which the tracer does not record as a value of the call). Python evaluates
  // `self.dq(h)`'s argument just before the call, so the tensor the nearest op before it computed
  // is the one dequantized, when it is read after the call: from there on it is in float, as
  // after a scripted DeQuantStub (decoding after the stub is no quantized arithmetic). The
  // rounding error it carries stays.
  void find_traced_dequantized() {
    for (const auto& f : facts_.model_->functions) find_traced_dequantized(f->body);
  }

  void find_traced_dequantized(const ir::Block& b) {
    for (size_t i = 0; i < b.nodes.size(); ++i) {
      const ir::Node& call = *b.nodes[i];
      for (const auto& inner : call.blocks) find_traced_dequantized(*inner);
      if (call.inputs.size() >= 2 || facts_.stub_call(call) != StubKind::DeQuant) continue;
      const ir::Value* just_before = tensor_computed_just_before(b, i);
      if (just_before != nullptr && read_after(b, call, *just_before)) dequantized_in_trace_.insert(just_before);
      for (const ir::Value* v : tensors_waiting_for(b, i, just_before)) dequantized_in_trace_.insert(v);
    }
  }

  // A stub applied to a tensor computed earlier (`self.dq(levels[i])` of a list the heads filled)
  // has no op of its own before the call: the tensor just before is another level's. The tensor
  // dequantized is then the one the first op after the call reads, when that op does not read the
  // tensor just before, and nothing read it between its op and the call (it waited for the stub;
  // a feature map the head read before, and reads again after, is no such tensor). Stubs called
  // back to back (`decode(self.dq_cls(cls[l]), self.dq_reg(reg[l]), points)`) dequantize as many
  // such tensors made by the heads, read in whatever order the code after them reads them (not
  // the anchor points the decoder computed beside them).
  std::vector<const ir::Value*> tensors_waiting_for(const ir::Block& b, size_t call,
                                                    const ir::Value* just_before) const {
    constexpr size_t kMaxScanned = 256;  // nodes after the run: the code that reads the arguments
    const size_t call_order = program_order_.at(b.nodes[call].get());
    size_t run = 1;
    std::vector<const ir::Value*> waiting;
    for (size_t j = call + 1, scanned = 0; j < b.nodes.size() && scanned < kMaxScanned; ++j) {
      const ir::Node& n = *b.nodes[j];
      // A shape read is no reader of the values: anchors built from the feature maps' sizes
      // (`h, w = f.shape` in YOLOv8-style heads) come between the stubs and the heads' outputs.
      if (reads_only_metadata(n)) continue;
      std::vector<const ir::Value*> earlier = tensors_computed_before(n, call_order);
      if (earlier.empty()) {
        if (waiting.empty() && n.inputs.size() < 2 && facts_.stub_call(n) == StubKind::DeQuant) ++run;
        continue;
      }
      // One stub whose first reader reads the tensor just before it: that one is dequantized
      // (find_traced_dequantized). A run of stubs may end past a tensor computed beside the
      // heads' (`[self.dq(c) for c in cls]` after the anchor points): the filter below tells.
      if (run == 1 && waiting.empty() && std::find(earlier.begin(), earlier.end(), just_before) != earlier.end())
        return {};
      for (const ir::Value* v : earlier)
        if (!read_between(*v, call_order) && (run == 1 || made_by_a_module_or_quant_op(v)) &&
            std::find(waiting.begin(), waiting.end(), v) == waiting.end())
          waiting.push_back(v);
      ++scanned;
      if (run == 1 || waiting.size() >= run) break;
    }
    return waiting;
  }

  // A head's output (a module's call, its fake quant), or a view, an item or an op of that one
  // tensor alone (`self.reg(f).relu()`): what a run of stubs dequantizes. Anchor points computed
  // beside the heads come from sizes and aranges, not from a head's tensor.
  static bool made_by_a_module_or_quant_op(const ir::Value* v) {
    for (int depth = 0; v != nullptr && v->producer != nullptr && depth < 8; ++depth) {
      const ir::Node& p = *v->producer;
      if (p.kind == "prim::CallMethod" || is_in_graph_quant_op(p.kind)) return true;
      const bool unpacked = p.kind == "prim::TupleUnpack" || p.kind == "prim::ListUnpack" ||
                            p.kind == "prim::TupleIndex" || p.kind == "aten::__getitem__";
      const ir::Value* only = only_tensor_input(p);
      if (!(unpacked || ir::is_view_op(p) || only != nullptr) || p.inputs.empty()) return false;
      v = only != nullptr ? only : p.inputs[0];
    }
    return false;
  }

  // `f.shape`, `f.dim()`, `f.dtype`, `f.device`, `len(f)`, `f.numel()`: what the tensor is, not what it holds.
  static bool reads_only_metadata(const ir::Node& n) {
    static const std::set<std::string> kinds = {"aten::size",  "aten::dim",    "aten::numel", "aten::len",
                                                "prim::dtype", "prim::device", "prim::layout"};
    return kinds.count(n.kind) > 0;
  }

  // The one tensor an aten op reads (its other operands scalars or options), else null.
  static const ir::Value* only_tensor_input(const ir::Node& n) {
    if (n.kind.rfind("aten::", 0) != 0) return nullptr;
    const ir::Value* only = nullptr;
    for (const ir::Value* in : n.inputs)
      if (in->type.is_tensor()) {
        if (only != nullptr) return nullptr;
        only = in;
      }
    return only;
  }

  std::vector<const ir::Value*> tensors_computed_before(const ir::Node& n, size_t order) const {
    std::vector<const ir::Value*> earlier;
    for (const ir::Value* in : n.inputs)
      if (in->type.is_tensor() && in->producer != nullptr && program_order_.at(in->producer) < order)
        earlier.push_back(in);
    return earlier;
  }

  // Whether an op between `v`'s own and the node at `order` reads `v`.
  bool read_between(const ir::Value& v, size_t order) const {
    const size_t made = program_order_.at(v.producer);
    return std::any_of(v.users.begin(), v.users.end(), [&](const ir::Node* user) {
      const size_t at = program_order_.at(user);
      return at > made && at < order;
    });
  }

  static const ir::Value* tensor_computed_just_before(const ir::Block& b, size_t call) {
    for (size_t j = call; j-- > 0;)
      for (const ir::Value* out : b.nodes[j]->outputs)
        if (out->type.is_tensor()) return out;
    return nullptr;
  }

  bool read_after(const ir::Block& b, const ir::Node& call, const ir::Value& v) const {
    if (std::find(b.returns.begin(), b.returns.end(), &v) != b.returns.end()) return true;
    return std::any_of(v.users.begin(), v.users.end(), [&](const ir::Node* user) {
      while (user != nullptr && user->owner != &b) user = user->owner ? user->owner->owner : nullptr;
      return user != nullptr && program_order_.at(user) > program_order_.at(&call);
    });
  }

  void seed_model_inputs() {
    for (const auto& f : facts_.model_->functions)
      if (f->entry) seed_inputs(*f, {});
    const ir::Function* forward = facts_.model_->find_function("forward");
    if (forward != nullptr) seed_inputs(*forward, input_dtypes_);
  }

  void seed_inputs(const ir::Function& fn, const std::vector<ir::DType>& input_dtypes) {
    const ir::Function* forward = &fn;
    size_t input = 0;
    for (const ir::Value* p : forward->body.params) {
      if (p->type.kind == ir::Type::Kind::Module) continue;
      ValueFacts seed;
      seed.dtype = p->type.dtype;
      if (seed.dtype == ir::DType::Unknown && p->type.is_tensor() && input < input_dtypes.size())
        seed.dtype = input_dtypes[input];
      ++input;
      seed.from_input = true;
      join(p, seed);
    }
  }

  // The calls that may quantize a tensor: live calls of a module with one argument, in model
  // order (the order of Facts::quant_calls).
  template <typename Visit>
  void for_each_module_call(Visit visit) const {
    for (const auto& f : facts_.model_->functions) {
      ir::for_each_node(f->body, [&](const ir::Node& n) {
        if (n.kind != "prim::CallMethod" || n.inputs.size() < 2 || n.outputs.size() != 1 || !facts_.is_live(n)) return;
        if (n.inputs[0]->type.kind == ir::Type::Kind::Module) visit(n, n.inputs[0]->type.name);
      });
    }
  }

  // A module called more than once gets a view key per call ("quant#1"), so that views tell the
  // tensors a reused stub quantizes apart. Past kMaxCallsWithOwnViews calls (a stub applied in
  // a long unrolled loop), views stay per module: each key would be one more entry in every
  // view's facts.
  void number_repeated_calls() {
    static constexpr int kMaxCallsWithOwnViews = 64;
    std::map<std::string, int> calls;
    for_each_module_call([&](const ir::Node&, const std::string& path) { ++calls[path]; });
    std::map<std::string, int> seen;
    for_each_module_call([&](const ir::Node& n, const std::string& path) {
      if (calls[path] < 2 || calls[path] > kMaxCallsWithOwnViews) return;
      call_view_keys_[&n] = path + "#" + std::to_string(seen[path]++);
    });
  }

  // A call's output that is the whole of its module's quant point is also a view under the
  // call's own key.
  void add_call_view(const ir::Node& call, const std::string& path, ValueFacts& out) const {
    auto key = call_view_keys_.find(&call);
    auto whole = out.views.find(path);
    if (key != call_view_keys_.end() && whole != out.views.end() && !whole->second) out.views[key->second] = false;
  }

  // The tensor a quant call gives: its output; for a trace's FakeQuantize call that hands its
  // observer's state on to the next call, the last element of the tuple it returns (`_2, ...,
  // _11 = (activation_post_process).forward(x)`, `_11` the quantized x).
  static const ir::Value* quantized_tensor_of(const ir::Node& call) {
    const ir::Value* out = call.outputs[0];
    if (out->type.kind != ir::Type::Kind::Tuple || out->users.size() != 1) return out;
    const ir::Node& unpack = *out->users[0];
    return unpack.kind == "prim::TupleUnpack" && !unpack.outputs.empty() ? unpack.outputs.back() : out;
  }

  // The tensor a quant call quantizes: its first argument, or the one its method hands to the
  // quantize op. A trace that reaches one FakeQuantize from two modules (a stub called directly
  // and also held by an nn.Sequential) passes the first module's buffers as arguments before the
  // tensor, `forward(observer_enabled, fake_quant_enabled, scale, zero_point, mask)` (public
  // round 22's Annotated Transformer: its fix read `observer_enabled` as the mask's float values,
  // and failed verification).
  const ir::Value* quantized_argument(const ir::Node& call, const QuantPoint& point) const {
    const ir::Function* callee = ir::callee_of(*facts_.model_, call);
    if (callee != nullptr && point.node != nullptr)
      for (const auto& node : callee->body.nodes) {
        if (node->kind != point.node->kind || node->inputs.empty()) continue;
        const auto& params = callee->body.params;
        const auto at = std::find(params.begin(), params.end(), node->inputs[0]);
        if (at != params.end() && static_cast<size_t>(at - params.begin()) < call.inputs.size())
          return call.inputs[static_cast<size_t>(at - params.begin())];
      }
    return call.inputs[1];
  }

  // Every call that quantizes: stub calls, and calls of modules whose method holds an
  // in-graph quantize op (a traced QAT model's FakeQuantize).
  void collect_quant_calls() {
    for_each_module_call([&](const ir::Node& n, const std::string& path) {
      auto it = facts_.quant_points_.find(path);
      if (it == facts_.quant_points_.end() || is_weight_quantizer(path)) return;  // weights are no tensor
      if (it->second.node == nullptr && facts_.stub_call(n) != StubKind::Quant) return;
      auto key = call_view_keys_.find(&n);
      facts_.quant_calls_.push_back({path, &n, quantized_argument(n, it->second), quantized_tensor_of(n),
                                     key == call_view_keys_.end() ? path : key->second});
      // A C++ quantize call is a stub of its own, on the call's line: the call says in which file.
      if (QuantPoint& p = it->second; p.file.empty() && p.line > 0 && p.line == n.loc.line) p.file = n.loc.file;
    });
    in_execution_order(facts_.quant_calls_);
  }

  // The order in which a run from `forward` first reaches each node: a callee's nodes where it is
  // called. Functions are listed callers first, so a stub that a child calls (`self.body(x)` on
  // line 15, whose nn.Sequential holds the stub) would otherwise come after the parent's own call
  // of it on line 16 (public round 21: "first applied on line 16" for the call on line 15).
  void number_in_execution_order(const ir::Block& block, std::unordered_map<const ir::Node*, size_t>& order,
                                 std::set<const ir::Function*>& entered, int depth) const {
    constexpr int kMaxDepth = 64;  // nested calls followed; deeper ones keep the functions' order
    for (const auto& node : block.nodes) {
      order.emplace(node.get(), order.size());
      for (const auto& inner : node->blocks) number_in_execution_order(*inner, order, entered, depth);
      if (const ir::Function* callee = ir::callee_of(*facts_.model_, *node);
          callee != nullptr && depth < kMaxDepth && entered.insert(callee).second)
        number_in_execution_order(callee->body, order, entered, depth + 1);
    }
  }

  void in_execution_order(std::vector<QuantCall>& calls) const {
    const ir::Function* forward = facts_.model_->find_function("forward");
    if (forward == nullptr) return;
    std::unordered_map<const ir::Node*, size_t> order;
    std::set<const ir::Function*> entered{forward};
    number_in_execution_order(forward->body, order, entered, 0);
    auto position = [&](const QuantCall& c) {
      auto it = order.find(c.call);
      return it == order.end() ? order.size() : it->second;  // not reached from forward: after, as listed
    };
    std::stable_sort(calls.begin(), calls.end(),
                     [&](const QuantCall& a, const QuantCall& b) { return position(a) < position(b); });
  }

  // A value not reached yet knows only what its declared type says. A container holds what
  // any of its stores put in, wherever they are.
  ValueFacts get(const ir::Value* v) const {
    ValueFacts f = unstored(v);
    if (auto it = stores_.find(v); it != stores_.end())
      for (const auto& [node, store] : it->second) add_store(f, store);
    return f;
  }

  // What a container holds where `read` reads it under `key`: the stores that may have run
  // before (earlier in program order, in another function, or anywhere in a loop around both),
  // under that key or one not known statically. A store at the end of forward does not reach
  // a read at its start, nor `d["ids"]` a store under "feat".
  ValueFacts get_before(const ir::Value* container, const ir::Node& read, const std::string& key) const {
    ValueFacts f = unstored(container);
    if (auto it = stores_.find(container); it != stores_.end())
      for (const auto& [node, store] : it->second)
        if ((key.empty() || store.key.empty() || store.key == key) && may_run_before(*node, read)) add_store(f, store);
    return f;
  }

  ValueFacts unstored(const ir::Value* v) const {
    auto it = facts_.values_.find(v);
    if (it != facts_.values_.end()) return it->second;
    ValueFacts declared;
    declared.dtype = v->type.dtype;
    return declared;
  }

  bool may_run_before(const ir::Node& first, const ir::Node& second) const {
    if (facts_.function_of(first) != facts_.function_of(second)) return true;
    if (program_order_.at(&first) < program_order_.at(&second)) return true;
    for (const ir::Node* loop = enclosing_loop(first); loop != nullptr; loop = enclosing_loop(*loop))
      if (encloses(*loop, second)) return true;  // an earlier iteration's store
    return false;
  }

  static const ir::Node* enclosing_loop(const ir::Node& n) {
    for (const ir::Block* b = n.owner; b != nullptr && b->owner != nullptr; b = b->owner->owner)
      if (b->owner->kind == "prim::Loop") return b->owner;
    return nullptr;
  }

  static bool encloses(const ir::Node& outer, const ir::Node& n) {
    for (const ir::Block* b = n.owner; b != nullptr && b->owner != nullptr; b = b->owner->owner)
      if (b->owner == &outer) return true;
    return false;
  }

  // What one flow (a value's own facts, or an element's) adds to another.
  template <typename Into, typename From>
  static void add_flow(Into& into, const From& from) {
    into.sources.insert(from.sources.begin(), from.sources.end());
    into.domain.insert(from.domain.begin(), from.domain.end());
    into.from_input = into.from_input || from.from_input;
    for (const auto& [point, part] : from.views) into.views[point] = into.views[point] || part;
  }

  // A store as a container's facts see it: its element under its key.
  static void add_store(ValueFacts& container, const Store& store) { add_element(container, store.key, store.element); }

  static void add_element(ValueFacts& container, const std::string& key, const ValueFacts::Element& element) {
    auto [it, added] = container.elements.try_emplace(key);
    it->second.dtype = merged_dtype(it->second.dtype, element.dtype, added);
    add_flow(it->second, element);
  }

  // Everything a value carries, its elements' facts included: what an op that takes a container
  // whole (`torch.cat(parts)`, `len`, iteration, a store into a module attribute) gets. While the
  // solver runs, a container's own facts are what it holds under no key (an input dict's
  // caller-given entries, what an op's result holds), so a read of one key never sees another's.
  static ValueFacts flattened(ValueFacts f) {
    for (const auto& [key, element] : f.elements) add_flow(f, element);
    return f;
  }

  // Once the solver is done, a container's facts are everything it holds, its stores' included:
  // what rules ask of a container as a whole.
  void flatten_containers() {
    for (const auto& [container, stores] : stores_) facts_.values_[container] = get(container);
    for (auto& [value, f] : facts_.values_)
      if (!f.elements.empty()) f = flattened(f);
  }

  void join(const ir::Value* v, const ValueFacts& in) {
    if (!in.domain.empty() && dequantized_in_trace_.count(v)) {
      ValueFacts in_float = in;
      in_float.domain.clear();
      return join(v, in_float);
    }
    auto [it, inserted] = facts_.values_.try_emplace(v);
    ValueFacts& mine = it->second;
    if (inserted) {
      mine.dtype = in.dtype;
      changed_ = true;
    } else if (mine.dtype != in.dtype && mine.dtype != ir::DType::Unknown) {
      mine.dtype = ir::DType::Unknown;
      changed_ = true;
    }
    join_flow(mine, in, can_carry_quantization(v->type, mine.dtype));
    for (const auto& [key, element] : in.elements) join_element(mine.elements, key, element);
  }

  void join_element(std::map<std::string, ValueFacts::Element>& elements, const std::string& key,
                    const ValueFacts::Element& in) {
    auto [it, added] = elements.try_emplace(key);
    if (added) changed_ = true;
    join_dtype(it->second.dtype, in.dtype, added);
    join_flow(it->second, in, true);
  }

  // An element's dtype: the first one joined, Unknown once another differs.
  static ir::DType merged_dtype(ir::DType mine, ir::DType in, bool first) {
    return first || mine == in ? in : ir::DType::Unknown;
  }

  void join_dtype(ir::DType& mine, ir::DType in, bool first) {
    const ir::DType merged = merged_dtype(mine, in, first);
    if (!first && merged != mine) changed_ = true;
    mine = merged;
  }

  // What flows with a value, alike for a value and for a container's element: quantization
  // (where the value can carry it), origin in the input, views.
  template <typename Flow>
  void join_flow(Flow& mine, const Flow& in, bool carries_quantization) {
    if (carries_quantization) {
      merge(mine.sources, in.sources);
      merge(mine.domain, in.domain);
    }
    if (in.from_input && !mine.from_input) {
      mine.from_input = true;
      changed_ = true;
    }
    join_views(mine.views, in.views);
  }

  void join_views(std::map<std::string, bool>& mine, const std::map<std::string, bool>& in) {
    for (const auto& [point, part] : in) {
      auto [view, added] = mine.emplace(point, part);
      if (added || (part && !view->second)) {
        view->second = view->second || part;
        changed_ = true;
      }
    }
  }

  void merge(std::set<std::string>& into, const std::set<std::string>& from) {
    size_t before = into.size();
    into.insert(from.begin(), from.end());
    if (into.size() != before) changed_ = true;
  }

  void join_value(const ir::Value* to, const ir::Value* from) { join(to, get(from)); }

  void block(const ir::Block& b) {
    for (const auto& n : b.nodes) node(*n);
  }

  void node(const ir::Node& n) {
    if (n.kind == "prim::If") return if_node(n);
    if (n.kind == "prim::Loop") return loop_node(n);
    // Stubs first: their semantics are known, whether or not the front end gave them a body
    // (FX keeps them as leaf modules without one).
    if (StubKind stub = facts_.stub_call(n); stub != StubKind::None && n.inputs.size() >= 2 && n.outputs.size() == 1)
      return stub_node(n, stub, n.inputs[0]->type.name, n.inputs[1]);
    if (const ir::Function* callee = ir::callee_of(*facts_.model_, n)) return call_node(n, *callee);
    if (n.kind == "prim::SetAttr") return set_attribute(n);
    if (n.kind == "prim::GetAttr" && read_attribute(n)) return;
    for (const auto& b : n.blocks) block(*b);
    plain_node(n);
  }

  void set_attribute(const ir::Node& n) {
    auto key = attribute_key(n);
    if (!key || n.inputs.size() < 2) return;
    ValueFacts written = flattened(get(n.inputs[1]));
    auto [it, added] = attributes_.try_emplace(*key);
    ValueFacts& mine = it->second;
    const size_t before = mine.sources.size() + mine.domain.size();
    merge(mine.sources, written.sources);
    merge(mine.domain, written.domain);
    join_views(mine.views, written.views);
    if (added || mine.sources.size() + mine.domain.size() != before || (written.from_input && !mine.from_input))
      changed_ = true;
    mine.from_input = mine.from_input || written.from_input;
  }

  // True when the read is of an attribute forward writes (its facts are set here).
  bool read_attribute(const ir::Node& n) {
    auto key = attribute_key(n);
    if (!key || n.outputs.size() != 1) return false;
    auto it = attributes_.find(*key);
    if (it == attributes_.end()) return false;
    ValueFacts read = it->second;
    read.dtype = n.outputs[0]->type.dtype;
    join(n.outputs[0], read);
    return true;
  }

  void if_node(const ir::Node& n) {
    auto folded = facts_.folded_branches_.find(&n);
    for (size_t i = 0; i < n.blocks.size(); ++i) {
      if (folded != facts_.folded_branches_.end() && folded->second != i) continue;  // never runs
      const auto& b = n.blocks[i];
      block(*b);
      for (size_t i = 0; i < n.outputs.size() && i < b->returns.size(); ++i) join_value(n.outputs[i], b->returns[i]);
    }
  }

  // prim::Loop(max_trip_count, initial_condition, carried...) with a body
  // block(iteration, carried...) -> (condition, carried...).
  void loop_node(const ir::Node& n) {
    if (n.blocks.size() != 1) return plain_node(n);
    const ir::Block& body = *n.blocks[0];
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      if (i + 1 >= body.params.size()) break;
      if (i + 2 < n.inputs.size()) join_value(body.params[i + 1], n.inputs[i + 2]);
      if (i + 1 < body.returns.size()) join_value(body.params[i + 1], body.returns[i + 1]);
    }
    block(body);
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      if (i + 2 < n.inputs.size()) join_value(n.outputs[i], n.inputs[i + 2]);
      if (i + 1 < body.returns.size()) join_value(n.outputs[i], body.returns[i + 1]);
    }
  }

  // A callee's parameters join every call site's arguments, so its returns carry what any
  // caller brings. When the callee adds no quantization of its own (see transparent), a call's
  // outputs keep only the quant points its own arguments bring: `self.refine(x_float)` beside
  // `self.refine(q)` stays float.
  void call_node(const ir::Node& n, const ir::Function& callee) {
    std::vector<ir::Value*> args = ir::call_arguments(n);
    for (size_t i = 0; i < args.size() && i < callee.body.params.size(); ++i)
      join_value(callee.body.params[i], args[i]);
    // Past the verifier's bound (reached only through recursion the verifier does not count),
    // the callee's facts come from its own run in this pass or the last.
    auto it = visited_in_pass_.find(&callee);
    if ((it == visited_in_pass_.end() || it->second != pass_) && call_depth_ < ir::kMaxCallDepth) {
      visited_in_pass_[&callee] = pass_;
      ++call_depth_;
      block(callee.body);
      --call_depth_;
    }
    const bool own_arguments_only = transparent(callee);
    std::set<std::string> brought;
    for (const ir::Value* arg : args) add_points(get(arg), brought);
    for (size_t i = 0; i < n.outputs.size() && i < callee.body.returns.size(); ++i) {
      ValueFacts out = get(callee.body.returns[i]);
      if (own_arguments_only) keep_points(out, brought);
      if (n.inputs[0]->type.kind == ir::Type::Kind::Module) add_call_view(n, n.inputs[0]->type.name, out);
      join(n.outputs[i], out);
    }
  }

  // Whether nothing in `fn`, or in what it calls, quantizes or reads module state that forward
  // writes: its outputs can then carry only the quantization its arguments bring.
  bool transparent(const ir::Function& fn, int depth = 0) {
    if (auto it = transparent_.find(&fn); it != transparent_.end()) return it->second;
    bool clear = depth < 32;
    ir::for_each_node(fn.body, [&](const ir::Node& n) {
      if (!clear) return;
      const auto key = n.kind == "prim::GetAttr" ? attribute_key(n) : std::nullopt;
      if (facts_.stub_call(n) == StubKind::Quant || quantizes_activations(n) || (key && written_.count(*key)))
        clear = false;
      else if (const ir::Function* inner = ir::callee_of(*facts_.model_, n))
        clear = transparent(*inner, depth + 1);
    });
    return transparent_[&fn] = clear;
  }

  static void add_points(const ValueFacts& f, std::set<std::string>& points) {
    auto add = [&](const auto& flow) {
      points.insert(flow.sources.begin(), flow.sources.end());
      points.insert(flow.domain.begin(), flow.domain.end());
      for (const auto& [point, part] : flow.views) points.insert(point);
    };
    add(f);
    for (const auto& [key, element] : f.elements) add(element);
  }

  template <typename Flow>
  static void keep_flow(Flow& f, const std::set<std::string>& points) {
    auto drop = [&](std::set<std::string>& set) {
      for (auto it = set.begin(); it != set.end();) it = points.count(*it) ? std::next(it) : set.erase(it);
    };
    drop(f.sources);
    drop(f.domain);
    for (auto it = f.views.begin(); it != f.views.end();)
      it = points.count(it->first) ? std::next(it) : f.views.erase(it);
  }

  static void keep_points(ValueFacts& f, const std::set<std::string>& points) {
    keep_flow(f, points);
    for (auto& [key, element] : f.elements) keep_flow(element, points);
  }

  void stub_node(const ir::Node& n, StubKind stub, const std::string& path, const ir::Value* input) {
    ValueFacts out = get(input);
    out.views.clear();
    if (stub == StubKind::Quant) {
      out.sources = {path};
      // A quant point's output holds none of its input's elements (a C++ model run's input is the
      // list of the model's inputs; a stub's, a tensor with none).
      out.elements.clear();
      // A C++ program's model outputs carry the model's rounding, but the code after the model
      // computes in float, as after a DeQuantStub: no quantized arithmetic, no shared scale.
      if (auto point = facts_.quant_points_.find(path);
          point == facts_.quant_points_.end() || !point->second.model_outputs)
        out.domain = {path};
      out.views[path] = false;
      add_call_view(n, path, out);
    } else {
      out.domain.clear();  // back in float; the rounding error stays
    }
    join(n.outputs[0], out);
  }

  // `best[m] = d[m]`, `canvas.index_put_(...)`, `x.add_(q)`: from here on the tensor written in
  // place (and each tensor it is a view of) holds what was written. Joined whatever the order, as
  // a loop's next iteration reads it (farthest-point sampling's `best`); SSA gives the write's
  // output a value of its own, but later reads name the tensor. Only tensors the model makes: a
  // parameter (`flags[:, 0] = q[:, 0]` on an input) keeps what the caller gave it, so that reads
  // of it before the write stay what they are.
  void write_in_place(const ir::Node& n) {
    if (n.inputs.empty() || !n.inputs[0]->type.is_tensor() || !ir::writes_in_place(n, 0)) return;
    ValueFacts written;
    for (size_t i = 1; i < n.inputs.size(); ++i) {
      if (!carries_data(n.inputs[i]->type)) continue;
      // Gathered here, joined below: a change only when the join changes what is known.
      ValueFacts f = flattened(get(n.inputs[i]));
      written.sources.insert(f.sources.begin(), f.sources.end());
      written.domain.insert(f.domain.begin(), f.domain.end());
      written.from_input = written.from_input || f.from_input;
    }
    // Written at places the input decides (`mask[i, lengths[i]:] = 0`, Speech-Transformer's padding
    // mask from `new_ones`; public round 23): what the tensor holds depends on the input, though
    // the value written is a constant.
    if (!written.from_input) written.from_input = placed_by_the_input(n.inputs[0]);
    if (written.sources.empty() && written.domain.empty() && !written.from_input) return;
    const ir::Value* target = n.inputs[0];
    for (int depth = 0; target != nullptr && target->producer != nullptr && depth < 256; ++depth) {
      written.dtype = facts_.dtype(target);
      join(target, written);
      const ir::Node* producer = target->producer;
      if (producer->inputs.empty() || !ir::may_alias_first_operand(*producer)) break;
      target = producer->inputs[0];
    }
  }

  // Whether the view an in-place write writes through (`m.select(0, i).slice(0, n)`) is placed by
  // a number the input holds (a length, not a size of its shape): a select's index, a slice's or
  // a narrow's bounds.
  bool placed_by_the_input(const ir::Value* view) const {
    for (int depth = 0; view != nullptr && view->producer != nullptr && depth < 256; ++depth) {
      const ir::Node* producer = view->producer;
      if (producer->inputs.empty() || !ir::may_alias_first_operand(*producer)) return false;
      const bool placing =
          producer->kind == "aten::select" || producer->kind == "aten::slice" || producer->kind == "aten::narrow";
      for (size_t i = 2; placing && i < producer->inputs.size() && i < 4; ++i)
        if (held_by_the_input(producer->inputs[i])) return true;
      view = producer->inputs[0];
    }
    return false;
  }

  // A number read off the input's values (`lengths[i]`), not off its shape (`x.size(1)`).
  bool held_by_the_input(const ir::Value* number) const {
    if (number->type.is_tensor() || !get(number).from_input) return false;
    const ir::Node* p = number->producer;
    while (p != nullptr && (p->kind == "aten::Int" || p->kind == "prim::NumToTensor") && !p->inputs.empty())
      p = p->inputs[0]->producer;
    return p == nullptr || (p->kind != "aten::size" && p->kind != "aten::len" && p->kind != "aten::dim");
  }

  void plain_node(const ir::Node& n) {
    write_in_place(n);
    ValueFacts merged;
    ir::DType element_dtype = ir::DType::Unknown;  // of the element an element read reads
    const size_t data_operands = takes_only_the_form_of_its_second_operand(n) ? 1 : n.inputs.size();
    const bool reads_an_element = element_read(n) || is_unpack(n);
    for (size_t i = 0; i < n.inputs.size() && i < data_operands; ++i) {
      const ir::Value* in = n.inputs[i];
      // An element read takes what the container holds there and then (read_element).
      if (i == 0 && (takes_only_the_form_of_its_tensor(n) || reads_an_element)) continue;
      ValueFacts f = flattened(get(in));
      merged.sources.insert(f.sources.begin(), f.sources.end());
      merged.domain.insert(f.domain.begin(), f.domain.end());
      // A size or an index read off an input (`self.pe[: x.size(0)]`, `self.anchors[keep]` with
      // `keep` from the scores) is no data from it: the values are the indexed tensor's.
      if (carries_data(in->type) && gives_values(n, in)) merged.from_input = merged.from_input || f.from_input;
    }
    if (rounds_weights(n)) {
      // The weights' rounding reaches what they compute (the only rounding in weight-only QAT),
      // but puts nothing in the quantized domain and makes no quant point's output.
      merged.sources = {in_graph_quant_point(n)};
    } else if (quantizes_activations(n) && !in_weight_quantizer(n)) {
      std::string id = in_graph_quant_point(n);
      merged.sources = {id};
      merged.domain = {id};
      merged.views[id] = false;
    } else if (is_dequantize_op(n.kind)) {
      merged.domain.clear();
      // The quant point's values, in float: a column read after it is still the point's (a
      // joined mask read back through `q.dequantize().select(1, 4)`, public C++ round 18).
      for (const auto& [point, was_part] : get(n.inputs[0]).views) merged.views[point] = was_part;
    } else if (gives_a_sign(n.kind)) {
      // Exact, as a comparison's result: the decision may flip, no value is off the grid.
      merged.sources.clear();
      merged.domain.clear();
    } else if (is_container_construct(n.kind)) {
      // Everything it holds is under a key (an unknown one: ""), nothing of it as a whole.
      merged.sources.clear();
      merged.domain.clear();
      merged.from_input = false;
      merged.elements = elements_of_construct(n);
    } else if (auto joined = joined_containers(n)) {
      merged = std::move(*joined);
    } else if (auto key = element_read(n)) {
      element_dtype = read_element(get_before(n.inputs[0], n, *key), *key, merged);
    } else if (is_container_store(n)) {
      store_element(n);
    } else if (bool part = false; !n.inputs.empty() && (ir::is_view_op(n, &part) || keeps_the_values(n))) {
      for (const auto& [point, was_part] : get(n.inputs[0]).views) merged.views[point] = was_part || part;
      keep_what_the_cat_items_read_hold(n, merged);
    } else if (const ir::Node* parts = joined_parts(n)) {
      // `torch.cat([ones, x[..., -1:]])`: every value of each part is in the result, which is a
      // part of a quant point's output unless some item is the whole of it.
      for (const ir::Value* item : parts->inputs)
        for (const auto& [point, was_part] : get(item).views) {
          auto [view, added] = merged.views.emplace(point, was_part);
          view->second = view->second && was_part;
        }
    }
    auto dtype_of = [this](const ir::Value* v) { return facts_.dtype(v); };
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      merged.dtype = known_or(infer_output_dtype(n, i, dtype_of), element_dtype);
      if (is_unpack(n)) {
        const std::string key = std::to_string(i);
        ValueFacts element = merged;
        element.dtype = known_or(merged.dtype, read_element(get_before(n.inputs[0], n, key), key, element));
        join(n.outputs[i], element);
      } else {
        join(n.outputs[i], merged);
      }
    }
  }

  // A pick of a cat's result along the joined dimension (`det.select(1, 5)` of
  // `torch::cat({box, score, cls}, 1)`) holds what the items it reads hold, nothing of the
  // others: a class-id column joined to quantized boxes is as exact as the ids.
  void keep_what_the_cat_items_read_hold(const ir::Node& n, ValueFacts& merged) const {
    if ((n.kind != "aten::select" && n.kind != "aten::slice") || n.outputs.size() != 1) return;
    auto items = cat_items_holding(*facts_.model_, n.outputs[0]);
    if (!items) return;
    ValueFacts read;
    for (const CatItemRead& item : *items) add_flow(read, flattened(get(item.item)));
    merged.sources = read.sources;
    merged.domain = read.domain;
    merged.from_input = read.from_input;
  }

  static ir::DType known_or(ir::DType known, ir::DType otherwise) {
    return known != ir::DType::Unknown ? known : otherwise;
  }

  static bool is_unpack(const ir::Node& n) {
    return (n.kind == "prim::TupleUnpack" || n.kind == "prim::ListUnpack") && !n.inputs.empty();
  }

  static bool is_container_construct(const std::string& kind) {
    return kind == "prim::DictConstruct" || kind == "prim::TupleConstruct" || kind == "prim::ListConstruct";
  }

  // An element's facts as a container holds them. A number (`x.size(1)` in `[n, 1]`) is no data
  // from the input it was read off.
  ValueFacts::Element element_of(const ir::Value* v) const {
    ValueFacts f = flattened(get(v));
    return {f.sources, f.domain, f.from_input && carries_data(v->type), f.views,
            v->type.is_tensor() ? facts_.dtype(v) : ir::DType::Unknown};
  }

  // `prim::join`, the C++ lowering's value where paths meet, of containers that hold elements
  // by key (a vector of aggregates' columns after the loop that filled them): each key's element
  // joined over the paths; what a path holds under no key (an empty vector's construction, a
  // parameter) counts under every key, as a store under an unknown key does. Nullopt for any
  // other node, or when no path holds elements by key.
  std::optional<ValueFacts> joined_containers(const ir::Node& n) const {
    if (n.kind != "prim::join") return std::nullopt;
    ValueFacts joined;
    bool by_key = false;
    for (const ir::Value* in : n.inputs) {
      const ValueFacts f = get(in);
      by_key = by_key || !f.elements.empty();
      for (const auto& [key, element] : f.elements) add_element(joined, key, element);
      if (!f.sources.empty() || !f.domain.empty() || f.from_input) add_flow(joined.elements[""], f);
    }
    if (!by_key) return std::nullopt;
    return joined;
  }

  // Dicts take (key, value) pairs; tuples and lists their elements by position.
  std::map<std::string, ValueFacts::Element> elements_of_construct(const ir::Node& n) const {
    std::map<std::string, ValueFacts::Element> elements;
    const bool dict = n.kind == "prim::DictConstruct";
    for (size_t i = dict ? 1 : 0; i < n.inputs.size(); i += dict ? 2 : 1)
      elements[dict ? constant_key(n.inputs[i - 1]) : std::to_string(i)] = element_of(n.inputs[i]);
    return elements;
  }

  // `d["mask"]`, `t[0]`: the key of the element a node reads, if it reads one.
  static std::optional<std::string> element_read(const ir::Node& n) {
    if ((n.kind == "aten::__getitem__" || n.kind == "prim::TupleIndex") && n.inputs.size() == 2 &&
        n.inputs[0]->type.kind != ir::Type::Kind::Tensor)
      return constant_key(n.inputs[1]);
    return std::nullopt;
  }

  // `d["k"] = v`, `l.append(v)`, `l.insert(i, v)`: the container changes in place. A store
  // under a constant key (`d["feat"] = q`, `l[1] = q`) counts for that key only; any other
  // counts under every key.
  static bool is_container_store(const ir::Node& n) {
    static const std::set<std::string> ops = {"aten::_set_item", "aten::append", "aten::insert", "aten::extend",
                                              "aten::add_"};
    return ops.count(n.kind) > 0 && n.inputs.size() >= 2 && n.inputs[0]->type.kind != ir::Type::Kind::Tensor;
  }

  // Recorded per store node rather than joined into the container's value, so that a read sees
  // only the stores that may run before it (get_before).
  void store_element(const ir::Node& n) {
    std::string key = n.kind == "aten::_set_item" && n.inputs.size() == 3 ? constant_key(n.inputs[1]) : "";
    if (!key.empty() && key[0] == '-') key = "";  // `l[-1] = v`: a position counted from the end
    auto [it, added] = stores_[n.inputs[0]].try_emplace(&n);
    Store& store = it->second;
    store.key = key;
    if (added) changed_ = true;
    const ValueFacts::Element stored = element_of(n.inputs.back());
    join_dtype(store.element.dtype, stored.dtype, added);
    join_flow(store.element, stored, true);
  }

  // What reading one element gives: the element under that key when the container has one,
  // else what it holds under no key (the caller's entries of an input dict, what an op's result
  // such as `x.split(2)` holds: parts of a view as a whole), and in either case what was stored
  // under a key not known statically. A key not known statically reads everything.
  // Returns the element's dtype when that key's element alone is read (Unknown otherwise).
  ir::DType read_element(const ValueFacts& container, const std::string& key, ValueFacts& out) const {
    out.views.clear();
    ValueFacts::Element read;
    for (const auto& [point, part] : container.views) read.views[point] = true;
    auto element = container.elements.find(key);
    if (key.empty()) {
      add_flow(read, flattened(container));
    } else if (element != container.elements.end()) {
      add_flow(read, element->second);
    } else {
      add_flow(read, ValueFacts::Element{container.sources, container.domain, container.from_input, {}});
    }
    auto unknown = container.elements.find("");
    if (!key.empty() && unknown != container.elements.end()) add_flow(read, unknown->second);
    add_flow(out, read);
    const bool alone = !key.empty() && element != container.elements.end() &&
                       (unknown == container.elements.end() || unknown->second.dtype == element->second.dtype);
    return alone ? element->second.dtype : ir::DType::Unknown;
  }

  // `mask.type_as(x)`, `mask.to(x)`, `a.expand_as(b)`: the second operand gives a dtype or a
  // shape, never its values, so neither its rounding error nor its origin passes on.
  static bool takes_only_the_form_of_its_second_operand(const ir::Node& n) {
    static const std::set<std::string> ops = {"aten::type_as", "aten::expand_as", "aten::view_as", "aten::reshape_as"};
    if (n.inputs.size() < 2) return false;
    return ops.count(n.kind) > 0 || (n.kind == "aten::to" && n.inputs[1]->type.is_tensor());
  }

  // Whether the output's values come from operand `in`, not only their places: of a selection
  // by index or mask (`x[keep]`, `gather`), the indexed tensor only. The toolchain gives such a
  // selection the scale of the tensor it selects from (a table of priors: a constant's). Not
  // `where(c, a, b)`, which puts either value anywhere the condition says.
  static bool gives_values(const ir::Node& n, const ir::Value* in) {
    // An operand the schema calls `index` or `indices` says where the values come from, not
    // which: `self.pos_embedding(idx)` (embedding), index_select, scatter's index, `t[keep]`.
    for (const char* name : {"index", "indices"})
      if (ir::named_operand(n, name) == in) return false;
    static const std::set<std::string> by_index = {"aten::gather", "aten::take_along_dim", "aten::take"};
    if (n.inputs.empty() || n.outputs.size() != 1) return true;
    if (ir::is_view_op(n) || by_index.count(n.kind)) return in == n.inputs[0];
    return true;
  }

  // The list `torch.cat`/`torch.stack` joins, when the graph builds it in place.
  static const ir::Node* joined_parts(const ir::Node& n) {
    if ((n.kind != "aten::cat" && n.kind != "aten::stack") || n.inputs.empty()) return nullptr;
    const ir::Node* list = n.inputs[0]->producer;
    return list != nullptr && list->kind == "prim::ListConstruct" ? list : nullptr;
  }

  // A cast that changes no value: to a floating dtype from a floating one or from bool
  // (`mask.float()` on a float 0/1 channel, DETR's `mask[None].float()` before resizing it).
  bool keeps_the_values(const ir::Node& n) const {
    if (!ir::is_cast(n) || n.outputs.size() != 1) return false;
    auto dtype_of = [this](const ir::Value* v) { return facts_.dtype(v); };
    const ir::DType to = cast_dtype(n, dtype_of).value_or(ir::DType::Unknown);
    const ir::DType from = facts_.dtype(n.inputs[0]);
    return ir::is_floating(to) && (ir::is_floating(from) || from == ir::DType::Bool || from == ir::DType::Unknown);
  }

  // `torch.zeros_like(x)`, `x.new_zeros(...)`, `torch.full_like(x, v)`: a new tensor that takes
  // only the shape, dtype and device of its operand, none of its values: no rounding error, and
  // nothing of the input's data.
  static bool takes_only_the_form_of_its_tensor(const ir::Node& n) {
    const std::string op = ir::base_op(n.kind);
    const bool like = op.size() > 5 && op.compare(op.size() - 5, 5, "_like") == 0;
    const bool fresh = op.rfind("new_", 0) == 0 && op != "new_tensor";
    // A size is a tensor in ONNX (`Shape`), an int in TorchScript: either way no data of it.
    const bool size = op == "size" || op == "numel";
    return n.kind.rfind("aten::", 0) == 0 && (like || fresh || size);
  }

  // A fake quant of a QAT module's weights (`conv.weight_fake_quant`), per tensor or per channel.
  bool rounds_weights(const ir::Node& n) const {
    const QuantOpOperands* operands = quant_op_operands(n.kind);
    return operands != nullptr && operands->fake && in_weight_quantizer(n) && !n.outputs.empty();
  }

  bool in_weight_quantizer(const ir::Node& n) const {
    const ir::Function* fn = facts_.function_of(n);
    return fn != nullptr && is_weight_quantizer(fn->module_path);
  }

  static bool carries_data(const ir::Type& type) {
    using K = ir::Type::Kind;
    return type.kind == K::Tensor || type.kind == K::List || type.kind == K::Tuple || type.kind == K::Optional ||
           type.kind == K::Other;
  }

  // A fake quantize op with a Python float as its scale: not a FakeQuantize module's (which
  // passes its scale buffer, a tensor, also once frozen into a constant) but one written into a
  // graph, as `--fix` does in traced QAT models.
  static bool inline_fake_quant(const ir::Node& n) {
    const QuantOpOperands* operands = quant_op_operands(n.kind);
    if (operands == nullptr || !operands->fake || operands->scale < 0) return false;
    const auto scale = static_cast<size_t>(operands->scale);
    return scale < n.inputs.size() && n.inputs[scale]->type.kind == ir::Type::Kind::Float;
  }

  // Names the quant point of an in-graph quantize op: the module holding it when it sits in
  // a module's method (a FakeQuantize), else the function and value (also for an inline fake
  // quant, which is one of several in the method of a module that quantizes nothing itself).
  std::string in_graph_quant_point(const ir::Node& n) {
    const ir::Function* fn = facts_.function_of(n);
    // A traced module called more than once gets forward, forward1, ...: each is its forward.
    bool in_module = fn && !fn->module_path.empty() && fn->method.rfind("forward", 0) == 0 && !inline_fake_quant(n);
    std::string id = in_module ? fn->module_path : (fn ? fn->name : "?") + ":%" + n.outputs[0]->name;
    auto [it, added] = facts_.quant_points_.try_emplace(id);
    if (!added) return id;
    QuantPoint& p = it->second;
    p.id = id;
    p.display = in_module ? module_quant_point_display(fn->module_path) : op_display(n.kind);
    if (!in_module) {
      p.line = n.loc.line;
      p.file = n.loc.file;
    }
    p.node = &n;
    if (const QuantOpOperands* operands = quant_op_operands(n.kind)) {
      read_quant_parameters(n, *operands, p);
    } else {
      read_kernel_output_parameters(n, p);
    }
    return id;
  }

  // Whether an op puts activations into the quantized domain: per-tensor (fake) quantize ops
  // and the kernels of converted models. Per-channel quantization is for weights, and dynamic
  // kernels keep activations float.
  static bool quantizes_activations(const ir::Node& n) {
    if (is_dynamic_quantized_op(n.kind)) return false;
    if (n.kind.rfind("quantized::", 0) == 0) return true;
    const QuantOpOperands* operands = quant_op_operands(n.kind);
    if (operands == nullptr) return false;
    const auto axis = static_cast<size_t>(operands->channel_axis);
    return operands->per_tensor(operands->channel_axis >= 0 && axis < n.inputs.size() ? int_constant(n.inputs[axis])
                                                                                      : std::nullopt);
  }

  static void read_quant_parameters(const ir::Node& n, const QuantOpOperands& operands, QuantPoint& p) {
    auto operand = [&](int index) -> const ir::Value* {
      return index >= 0 && static_cast<size_t>(index) < n.inputs.size() ? n.inputs[static_cast<size_t>(index)]
                                                                        : nullptr;
    };
    p.identity_in_float = operands.fake;
    if (const ir::Value* scale = operand(operands.scale)) p.scale = scalar_constant(scale);
    // The observer's update written into the scale buffer right before the op (a plain
    // FakeQuantize's trace), or the fused op's own observer switch, on.
    const ir::Value* scale = operand(operands.scale);
    p.observes_at_run_time =
        (scale != nullptr && scale->producer != nullptr && scale->producer->kind == "aten::copy_") ||
        (n.kind == "aten::fused_moving_avg_obs_fake_quant" && n.inputs.size() > 1 &&
         scalar_constant(n.inputs[1]) == 1.0);
    if (const ir::Value* zero_point = operand(operands.zero_point)) p.zero_point = int_constant(zero_point).value_or(0);
    if (const ir::Value* quant_min = operand(operands.quant_min))
      p.quant_min = int_constant(quant_min).value_or(p.quant_min);
    if (const ir::Value* quant_max = operand(operands.quant_max))
      p.quant_max = int_constant(quant_max).value_or(p.quant_max);
    if (const ir::Value* dtype_operand = operand(operands.dtype)) {
      auto range = ir::quantized_range(ir::dtype_from_scalar_type_code(int_constant(dtype_operand).value_or(-1)));
      if (range) std::tie(p.quant_min, p.quant_max) = *range;
    }
  }

  // A converted model's kernels (quantized::conv2d, quantized::add, ...) take their output's
  // scale and zero point as their last two operands, and produce quint8 activations.
  static void read_kernel_output_parameters(const ir::Node& n, QuantPoint& p) {
    p.identity_in_float = false;
    p.quant_min = 0;
    p.quant_max = 255;
    if (n.inputs.size() < 2) return;
    auto scale = scalar_constant(n.inputs[n.inputs.size() - 2]);
    auto zero_point = int_constant(n.inputs.back());
    if (!scale || !zero_point || n.inputs[n.inputs.size() - 2]->type.kind != ir::Type::Kind::Float) return;
    p.scale = scale;
    p.zero_point = *zero_point;
  }

  Facts& facts_;
  std::map<std::string, ValueFacts> attributes_;               // "module.path.attribute" -> what forward wrote
  std::set<std::string> written_;                              // the attributes some prim::SetAttr writes
  std::map<const ir::Node*, std::string> call_view_keys_;      // see number_repeated_calls
  std::unordered_map<const ir::Node*, size_t> program_order_;  // every node's place, for may_run_before
  std::unordered_set<const ir::Value*> dequantized_in_trace_;  // find_traced_dequantized
  std::map<const ir::Value*, std::map<const ir::Node*, Store>> stores_;  // by container, by store node
  std::map<const ir::Function*, bool> transparent_;
  std::map<const ir::Function*, int> visited_in_pass_;  // the pass in which a call last ran the body
  int pass_ = 0;
  int call_depth_ = 0;  // calls being followed into their callees
  const StubClasses& stubs_;
  const Calibration& calibration_;
  const std::vector<ir::DType>& input_dtypes_;
  bool changed_ = false;
};

namespace {

// Facts::simulated_copies_: each function's copies of a simulated line, in its nodes' order, matched
// to the simulation's by their position, where both hold as many.
void match_simulated_copies(const ir::Model& model, const SimulatedRun& run,
                            std::map<const ir::Node*, std::string>& out) {
  for (const auto& f : model.functions) {
    std::map<std::string, std::vector<const ir::Node*>> copies;
    ir::for_each_node(f->body, [&](const ir::Node& n) {
      if (!n.loc.known()) return;
      std::string key = comparison_key(n.kind, n.loc);
      if (run.comparisons.count(key)) copies[key].push_back(&n);
    });
    for (const auto& [key, nodes] : copies) {
      auto probed = run.copies_in_function.find(copy_key(f->name, key));
      if (probed == run.copies_in_function.end() || probed->second != nodes.size()) continue;
      for (size_t k = 0; k < nodes.size(); ++k)
        if (std::string copy = copy_key(f->name, key, k); run.copies.count(copy)) out[nodes[k]] = copy;
    }
  }
}

}  // namespace

Facts Facts::compute(const ir::Model& model, const StubClasses& stubs, const SimulationEvidence& evidence) {
  Facts facts;
  facts.model_ = &model;
  facts.binary_comparisons_ = evidence.binary_comparisons;
  facts.simulated_comparisons_ = evidence.simulated_comparisons;
  if (const ir::Function* forward = model.find_function("forward")) {
    size_t input = 0;
    for (const ir::Value* p : forward->body.params) {
      if (p->type.kind == ir::Type::Kind::Module) continue;
      if (input < evidence.zero_one_inputs.size() && evidence.zero_one_inputs[input]) facts.zero_one_inputs_.insert(p);
      ++input;
    }
  }
  facts.simulated_run_ = evidence.run;
  if (facts.simulated_run_) match_simulated_copies(model, *facts.simulated_run_, facts.simulated_copies_);
  // The solver follows calls into their callees by recursion, up to ir::kMaxCallDepth deep
  // (a few frames a level): past what the 8 MiB main thread holds.
  ir::run_on_large_stack([&] { FactsSolver(facts, stubs, evidence).run(); });
  return facts;
}

const Facts::ValueFacts* Facts::find(const ir::Value* v) const {
  auto it = values_.find(v);
  return it == values_.end() ? nullptr : &it->second;
}

ir::DType Facts::dtype(const ir::Value* v) const {
  const ValueFacts* f = find(v);
  return f ? f->dtype : v->type.dtype;
}

const std::set<std::string>& Facts::quant_sources(const ir::Value* v) const {
  static const std::set<std::string> none;
  const ValueFacts* f = find(v);
  if (f == nullptr || !can_carry_quantization(v->type, f->dtype)) return none;
  return f->sources;
}

bool Facts::in_quantized_domain(const ir::Value* v) const {
  const ValueFacts* f = find(v);
  return f != nullptr && can_carry_quantization(v->type, f->dtype) && !f->domain.empty();
}

bool Facts::from_input(const ir::Value* v) const {
  const ValueFacts* f = find(v);
  return f != nullptr && f->from_input;
}

const std::map<std::string, bool>& Facts::views_of(const ir::Value* v) const {
  static const std::map<std::string, bool> none;
  const ValueFacts* f = find(v);
  return f ? f->views : none;
}

StubKind Facts::stub_call(const ir::Node& call) const {
  if (call.kind != "prim::CallMethod" || call.inputs.empty()) return StubKind::None;
  const ir::Type& self = call.inputs[0]->type;
  if (self.kind != ir::Type::Kind::Module) return StubKind::None;
  auto it = stub_modules_.find(self.name);
  return it == stub_modules_.end() ? StubKind::None : it->second;
}

const QuantPoint* Facts::quant_point(const std::string& id) const {
  auto it = quant_points_.find(id);
  return it == quant_points_.end() ? nullptr : &it->second;
}

std::string comparison_key(const std::string& kind, const ir::SourceLoc& loc) {
  return kind + "@" + loc.file + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column) + "-" +
         std::to_string(loc.end_line) + ":" + std::to_string(loc.end_column);
}

bool Facts::compares_only_zero_or_constant(const ir::Node& comparison) const {
  return comparison.loc.known() && binary_comparisons_.count(comparison_key(comparison.kind, comparison.loc)) > 0;
}

bool Facts::compares_other_values(const ir::Node& comparison) const {
  if (!comparison.loc.known()) return false;
  const std::string key = comparison_key(comparison.kind, comparison.loc);
  return simulated_comparisons_.count(key) > 0 && binary_comparisons_.count(key) == 0;
}

const SimulatedComparison* Facts::simulated_comparison(const ir::Node& comparison) const {
  if (!simulated_run_ || !comparison.loc.known()) return nullptr;
  auto it = simulated_run_->comparisons.find(comparison_key(comparison.kind, comparison.loc));
  return it == simulated_run_->comparisons.end() ? nullptr : &it->second;
}

std::string copy_key(const std::string& function, const std::string& key, std::optional<size_t> copy) {
  return function + "|" + key + (copy ? "#" + std::to_string(*copy) : "");
}

const SimulatedComparison* Facts::simulated_copy(const ir::Node& comparison) const {
  auto it = simulated_copies_.find(&comparison);
  if (it == simulated_copies_.end()) return simulated_comparison(comparison);
  return &simulated_run_->copies.at(it->second);
}

const QuantCall* Facts::quant_call_producing(const ir::Value* v) const {
  for (const auto& call : quant_calls_)
    if (call.output == v) return &call;
  return nullptr;
}

bool Facts::is_plain_stub(const std::string& path) const {
  auto it = stub_modules_.find(path);
  if (it == stub_modules_.end() || it->second != StubKind::Quant) return false;
  for (const auto& m : model_->modules)
    if (m.path.rfind(path + ".", 0) == 0) return false;
  return true;
}

std::optional<std::string> Facts::output_quant_point_owner(const std::string& point) const {
  const std::string suffix = ".activation_post_process";
  if (point.size() <= suffix.size() || point.compare(point.size() - suffix.size(), suffix.size(), suffix) != 0)
    return std::nullopt;
  const std::string owner = point.substr(0, point.size() - suffix.size());
  if (model_->find_module(owner) == nullptr) return std::nullopt;
  auto it = stub_modules_.find(owner);
  if (it != stub_modules_.end() && it->second == StubKind::Quant) return std::nullopt;
  return owner;
}

std::string Facts::plain_stub_template() const {
  for (const auto& entry : stub_modules_)
    if (is_plain_stub(entry.first)) return entry.first;
  return "";
}

std::optional<size_t> Facts::folded_branch(const ir::Node& if_node) const {
  auto it = folded_branches_.find(&if_node);
  if (it == folded_branches_.end()) return std::nullopt;
  return it->second;
}

bool Facts::is_live(const ir::Node& node) const {
  for (const ir::Block* b = node.owner; b != nullptr && b->owner != nullptr; b = b->owner->owner) {
    auto folded = folded_branches_.find(b->owner);
    if (folded != folded_branches_.end() && b->owner->blocks[folded->second].get() != b) return false;
  }
  return true;
}

const ir::Function* Facts::function_of(const ir::Node& node) const {
  auto it = block_function_.find(node.owner);
  return it == block_function_.end() ? nullptr : it->second;
}

}  // namespace qlint::analysis
