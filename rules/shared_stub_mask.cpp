// shared-stub-mask: one quant point quantizes a tensor that holds both a 0/1 mask and other
// data. The data's range sets the one scale: large data rounds the mask's 1s to 0 (SPEC S4),
// tiny data loses most of its bits to the mask's 1s (S5).
#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/cat_items.h"
#include "analysis/comparisons.h"
#include "analysis/constants.h"
#include "analysis/fake_quant.h"
#include "analysis/quant_domain.h"
#include "analysis/value_flow.h"
#include "ir/spelling.h"
#include "rules/registry.h"
#include "rules/support.h"

namespace qlint::rules {

namespace {

// Form (a): the stub's input is a cat/stack of a 0/1 mask with other data.
bool quantizes_cat_of_mask_and_data(const analysis::Facts& facts, const analysis::QuantCall& call) {
  const ir::Node* cat = call.input->producer;
  if (cat == nullptr || (cat->kind != "aten::cat" && cat->kind != "aten::stack") || cat->inputs.empty()) return false;
  const ir::Node* list = cat->inputs[0]->producer;
  if (list == nullptr || list->kind != "prim::ListConstruct") return false;
  bool mask = false, data = false;
  for (const ir::Value* part : list->inputs) (is_cast_of_bool(facts, part) ? mask : data) = true;
  return mask && data;
}

bool is_view_of(const analysis::Facts& facts, const ir::Value* v, const std::string& point, bool part_only) {
  const auto& views = facts.views_of(v);
  auto it = views.find(point);
  if (it == views.end()) return false;
  // A pick of a cat's result (a head's `cat([reg, obj, cls], 1)` read at `out[..., 4]`) reads
  // the items it covers: a view of the point only through them, a part only if it reads a part
  // of one (or one is a part of the point's output).
  if (auto items = analysis::cat_items_read(facts.model(), v)) {
    bool through = false, part = false;
    for (const auto& read : *items) {
      const auto& item_views = facts.views_of(read.item);
      auto item = item_views.find(point);
      if (item == item_views.end()) continue;
      through = true;
      part = part || item->second || !read.whole;
    }
    return through && (part || !part_only);
  }
  return it->second || !part_only;
}

// The node of a view chain that selected a single index (a mask channel), not just sliced.
const ir::Node* channel_pick(const ir::Value* v) {
  for (int depth = 0; v != nullptr && v->producer != nullptr && depth < 16; ++depth) {
    const std::string& kind = v->producer->kind;
    if (kind == "aten::select" || kind == "aten::index") return v->producer;
    if (!ir::is_view_op(*v->producer) || v->producer->inputs.empty()) return nullptr;
    v = v->producer->inputs[0];
  }
  return nullptr;
}

bool picks_one_channel(const ir::Value* v) { return channel_pick(v) != nullptr; }

// A channel picked by a constant index counted from the front (`p[..., 0]`, `box[..., 3]`): how
// coordinates are read. A mask channel is read from the end (`x[..., -1]`, SPEC S1).
bool picks_a_coordinate(const ir::Value* v) {
  const ir::Node* pick = channel_pick(v);
  if (pick == nullptr || pick->kind != "aten::select" || pick->inputs.size() < 3) return false;
  auto index = analysis::scalar_constant(pick->inputs[2]);
  return index && *index >= 0;
}

// Where a part of a quant point's output becomes a mask: the node that does so (for the
// message and the simulation's evidence), and the operand a fix takes from the float tensor,
// which for a comparison in disguise (`(1.0 - q).to(torch.bool)`) sits on the shift before it.
// `threshold` marks a mask made by comparing with anything but the 0/1 of a mask channel.
struct MaskUse {
  const ir::Node* node = nullptr;
  const ir::Node* consumer = nullptr;
  int operand = 0;
  bool comparison = false;
  bool threshold = false;
  bool whole_call = false;  // the whole tensor of one call of a stub called on several
};

// Ops a mask passes through and stays a mask: views and casts of it (a bool mask as 0/1
// floats), and any op that makes bools of it: logic combining or inverting it, or a test of it
// (`mask == 0` for `masked_fill`, as attention code writes it). By the result's dtype, so every
// spelling counts (`logical_xor`, `^`); by the op where a graph leaves the dtype unknown.
bool carries_mask(const analysis::Facts& facts, const ir::Node& n, const ir::Value* mask) {
  static const std::set<std::string> logic = {"logical_not", "logical_and", "logical_or", "logical_xor",
                                              "bitwise_not", "bitwise_and", "bitwise_or", "bitwise_xor",
                                              "__and__",     "__or__",      "__xor__",    "__invert__"};
  if (ir::is_view_op(n) || ir::is_cast(n)) return !n.inputs.empty() && n.inputs[0] == mask;
  if (n.output() != nullptr && facts.dtype(n.output()) == ir::DType::Bool) return true;
  return logic.count(ir::base_op(n.kind)) > 0 || analysis::is_comparison_op(n.kind);
}

// Where a mask does its work: gating data by multiplication, choosing with `torch.where`,
// filling or selecting with `masked_fill`/`masked_select`, or indexing (`x[mask]`).
bool gates_with(const ir::Node& n, const ir::Value* mask) {
  const std::string op = ir::base_op(n.kind);
  auto at = [&](size_t i) { return n.inputs.size() > i && n.inputs[i] == mask; };
  if (op == "mul") return true;
  // `torch.where(mask)` picks the indices of the kept elements; ONNX exports it as NonZero.
  if (op == "where" || op == "nonzero" || op == "argwhere") return at(0);
  if (op == "masked_fill" || op == "masked_select" || op == "masked_scatter" || op == "__getitem__") return at(1);
  return (op == "index" || op == "index_put") && at(1);  // the list of indices of `x[mask]`
}

// Whether a comparison's result is used as a mask, directly or through views, casts and logic,
// also where the program takes it (analysis/value_flow.h): into child modules (an attention
// layer's `key_padding_mask`), out of a backbone's returned tuple, through a class object. A
// threshold whose result is only counted, printed or returned is no mask of the data.
bool used_as_mask(const analysis::Facts& facts, const ir::Value* result) {
  return analysis::find_use(facts, result, [&facts](const ir::Node& user, const ir::Value* mask) {
    if (gates_with(user, mask)) return analysis::Use::Found;
    return carries_mask(facts, user, mask) ? analysis::Use::Follow : analysis::Use::Ignore;
  });
}

bool is_bool_cast(const analysis::Facts& facts, const ir::Node& n) {
  return n.kind == "aten::to" && !n.inputs.empty() && n.output() != nullptr &&
         facts.dtype(n.output()) == ir::DType::Bool && facts.dtype(n.inputs[0]) != ir::DType::Bool;
}

// Whether `n` tests its operand `side` for 0 or 1 (`==`/`!=` with that constant): a mask channel,
// unless the simulation saw other values than 0 and 1 in it (`seq != pad_idx` with pad 1 on token
// ids). With 0 the simulation says only whether values other than 0 came (a mask's 1s do).
bool tests_for_zero_or_one(const analysis::Facts& facts, const ir::Node& n, int side) {
  auto constant = analysis::scalar_constant(n.inputs[1 - side]);
  return (ir::base_op(n.kind) == "eq" || ir::base_op(n.kind) == "ne") && constant &&
         (*constant == 0 || (*constant == 1 && !facts.compares_other_values(n)));
}

// A comparison of a part with a constant. With 0 or 1 under `==`/`!=` the part is a mask
// channel by itself (SPEC S1-S4); any other comparison makes a mask only where its result is
// then used as one.
std::optional<MaskUse> compared_part(const analysis::Facts& facts, const ir::Node& n, const std::string& point) {
  for (int side : {0, 1}) {
    if (!is_view_of(facts, n.inputs[side], point, true) || !analysis::scalar_constant(n.inputs[1 - side])) continue;
    if (tests_for_zero_or_one(facts, n, side)) return MaskUse{&n, &n, side, true, false};
    if (analysis::is_hand_written_clamp(n)) return std::nullopt;  // `x[x < 0] = 0` masks no data
    if (n.output() != nullptr && used_as_mask(facts, n.output())) return MaskUse{&n, &n, side, true, true};
  }
  return std::nullopt;
}

std::optional<MaskUse> comparison_mask_use(const analysis::Facts& facts, const ir::Node& n, const std::string& point) {
  if (analysis::is_comparison_op(n.kind) && n.inputs.size() >= 2)
    if (auto use = compared_part(facts, n, point)) return use;
  // `part.to(torch.bool)`: the zero test `part != 0`, a mask where it is used as one.
  if (is_bool_cast(facts, n) && is_view_of(facts, n.inputs[0], point, true) && used_as_mask(facts, n.output()))
    return MaskUse{&n, &n, 0, true, true};
  if (auto bias = analysis::masking_bias(n); bias && is_view_of(facts, bias->mask.compared, point, true))
    return MaskUse{&n, bias->mask.reader, bias->mask.operand, true, false};
  auto disguised = analysis::disguised_comparison(n);
  if (!disguised || !is_view_of(facts, disguised->compared, point, true)) return std::nullopt;
  bool mask_channel = disguised->constant == 1;
  if (!mask_channel && (n.output() == nullptr || !used_as_mask(facts, n.output()))) return std::nullopt;
  return MaskUse{&n, disguised->reader, disguised->operand, true, !mask_channel};
}

// Whether a tensor the value is read from was written in place on its way from the quant point,
// by anything but `product` itself (`x[..., 4:] = x[..., 4:].sigmoid()` in a YOLO decode): its
// values are then no longer the point's output alone, and a product of its parts is no evidence of
// a 0/1 channel (public round 19: objectness times class scores was called a mask).
bool written_since_quantized(const ir::Model& model, const ir::Value* v, const ir::Node& product) {
  constexpr size_t kMaxValues = 64;  // views and calls back to the quant point, not a network
  std::deque<const ir::Value*> pending{v};
  std::set<const ir::Value*> seen;
  bool written = false;
  while (!pending.empty() && !written && seen.size() < kMaxValues) {
    const ir::Value* value = pending.front();
    pending.pop_front();
    if (value == nullptr || !seen.insert(value).second) continue;
    for_each_write_into(*value, [&](const ir::Node& writer) { written = written || &writer != &product; });
    if (value->producer != nullptr && ir::is_view_op(*value->producer))
      pending.push_back(value->producer->inputs[0]);
    else
      add_values_across_calls(model, *value, pending);
  }
  return written;
}

// A mul of two parts of the same output: the mask is the part that picked a single channel,
// gating the other part's channels. Two coordinates multiplied (a point's `p[..., 0] * p[..., 1]`,
// a box's width * height) are a product, not a gate; `x[..., 0] * x[..., -1]` is data and its
// mask channel (SPEC S5 with one data channel).
std::optional<MaskUse> product_mask_use(const analysis::Facts& facts, const ir::Node& n, const std::string& point) {
  if (ir::base_op(n.kind) != "mul" || n.inputs.size() < 2) return std::nullopt;
  const ir::Value* a = n.inputs[0];
  const ir::Value* b = n.inputs[1];
  if (a == b || !is_view_of(facts, a, point, false) || !is_view_of(facts, b, point, false) ||
      !(is_view_of(facts, a, point, true) || is_view_of(facts, b, point, true)))
    return std::nullopt;
  if (picks_a_coordinate(a) && picks_a_coordinate(b)) return std::nullopt;
  int operand = picks_one_channel(b) || !picks_one_channel(a) ? 1 : 0;
  if (written_since_quantized(facts.model(), n.inputs[operand], n)) return std::nullopt;
  return MaskUse{&n, &n, operand, false, false};
}

// The nodes that may use each quant point's output or a view of it, in model order: one of
// their operands, an item of a list operand, or the value a comparison in disguise compares is
// such a view. Built once per model, so that each point's searches below visit its own users
// only (scanning the whole model for every point was quadratic: `qlint cxx` on a file of 4,000
// functions, each quantizing).
class PointUsers {
 public:
  explicit PointUsers(const analysis::Facts& facts) {
    for_each_model_node(facts, [&](const ir::Function&, const ir::Node& n) {
      std::set<std::string> points;
      auto add = [&](const ir::Value* v) {
        if (v == nullptr) return;
        for (const auto& view : facts.views_of(v)) points.insert(view.first);
      };
      for (const ir::Value* in : n.inputs) {
        add(in);
        if (in->producer != nullptr && in->producer->kind == "prim::ListConstruct")
          for (const ir::Value* item : in->producer->inputs) add(item);
      }
      if (auto disguised = analysis::disguised_comparison(n)) add(disguised->compared);
      if (auto bias = analysis::masking_bias(n)) add(bias->mask.compared);
      for (const std::string& point : points) users_[point].push_back(&n);
    });
  }

  const std::vector<const ir::Node*>& of(const std::string& point) const {
    static const std::vector<const ir::Node*> none;
    auto it = users_.find(point);
    return it == users_.end() ? none : it->second;
  }

 private:
  std::map<std::string, std::vector<const ir::Node*>> users_;
};

// Form (b): where parts of the quant point's output are used as masks (compared with 0/1, also
// in disguise, or multiplied with another part of the same output), in program order.
std::vector<MaskUse> mask_uses_of_parts(const analysis::Facts& facts, const PointUsers& users,
                                        const std::string& point) {
  std::vector<MaskUse> found;
  for (const ir::Node* n : users.of(point)) {
    auto use = comparison_mask_use(facts, *n, point);
    if (!use) use = product_mask_use(facts, *n, point);
    if (use) found.push_back(*use);
  }
  return found;
}

// A node that computes with its operands: not a view, and not plumbing (containers, calls
// whose body the analysis follows). A call of a module without a body here (an FX leaf
// module such as a Conv2d) computes with its arguments; a stub call only quantizes them.
bool computes_with_operands(const analysis::Facts& facts, const ir::Node& n) {
  if (ir::is_view_op(n)) return false;
  if (n.kind == "prim::CallMethod")
    return ir::callee_of(facts.model(), n) == nullptr && facts.stub_call(n) == analysis::StubKind::None;
  return n.kind.rfind("prim::", 0) != 0;
}

// Whether another call of the call's quant point takes a tensor that is no bool mask cast to float:
// a stub applied to one mask per FPN level quantizes masks only, and shares no scale with data.
bool another_call_quantizes_data(const analysis::Facts& facts, const analysis::QuantCall& call) {
  for (const auto& other : facts.quant_calls())
    if (other.point == call.point && other.view_key != call.view_key && other.input != nullptr &&
        !is_cast_of_bool(facts, other.input))
      return true;
  return false;
}

// The first node that computes with a view of the call's tensor (`p * v` for a validity mask `v`
// through the data's stub): where a bool mask cast to float before the stub does its work.
std::optional<MaskUse> first_computation_with(const analysis::Facts& facts, const PointUsers& users,
                                              const std::string& key) {
  for (const ir::Node* n : users.of(key)) {
    if (!computes_with_operands(facts, *n)) continue;
    for (size_t i = 0; i < n->inputs.size(); ++i)
      if (is_view_of(facts, n->inputs[i], key, false)) return MaskUse{n, n, static_cast<int>(i), false, false, true};
  }
  return std::nullopt;
}

// A stub called on several tensors, one of them a 0/1 mask compared whole with 0 or 1 (a
// padding mask through the data's stub: `mask = self.quant(mask)`, then `mask == 0`, cast back
// with `mask.to(torch.bool)`, the test `!= 0`, or made an additive bias `(1.0 - mask) * -1e4`): the mask is part of
// what the stub quantizes, at the scale the data sets.
std::vector<MaskUse> whole_call_mask_uses(const analysis::Facts& facts, const PointUsers& users,
                                          const analysis::QuantCall& call) {
  std::vector<MaskUse> found;
  // Called once, or a module's output quant point, or one FX shares on purpose (reused-stub).
  if (call.view_key == call.point || inserted_by_fx(call.point) || facts.is_module_output_quant_point(call.point))
    return found;
  for (const ir::Node* n : users.of(call.view_key)) {
    if (n->inputs.size() < 2) continue;
    if (is_bool_cast(facts, *n) && is_view_of(facts, n->inputs[0], call.view_key, false)) {
      found.push_back(MaskUse{n, n, 0, true, false, true});
      continue;
    }
    if (auto bias = analysis::masking_bias(*n); bias && is_view_of(facts, bias->mask.compared, call.view_key, false)) {
      found.push_back(MaskUse{n, bias->mask.reader, bias->mask.operand, true, false, true});
      continue;
    }
    for (int side : {0, 1})
      if (is_view_of(facts, n->inputs[side], call.view_key, false) && tests_for_zero_or_one(facts, *n, side))
        found.push_back(MaskUse{n, n, side, true, false, true});
  }
  if (found.empty() && is_cast_of_bool(facts, call.input) && another_call_quantizes_data(facts, call))
    if (auto use = first_computation_with(facts, users, call.view_key)) found.push_back(*use);
  return found;
}

// `x[mask]`, `x.masked_select(mask)`: the selection a mask gates.
bool selects_by_mask(const ir::Node& n) {
  const std::string op = ir::base_op(n.kind);
  return (op == "index" || op == "masked_select") && n.inputs.size() >= 2;
}

// Whether some other use takes the quant point's output (or a view of it) as data.
bool used_as_data(const analysis::Facts& facts, const PointUsers& users, const std::string& point,
                  const std::vector<MaskUse>& mask_uses) {
  std::set<const ir::Node*> making_masks;
  for (const MaskUse& use : mask_uses)
    if (use.comparison) making_masks.insert({use.node, use.consumer});
  for (const ir::Node* user : users.of(point)) {
    const ir::Node& n = *user;
    // `data[mask]`: a copying view, but the values it picks out are the data the mask gates.
    if (selects_by_mask(n) && is_view_of(facts, n.inputs[0], point, false)) return true;
    if (!computes_with_operands(facts, n) || making_masks.count(&n)) continue;
    for (const ir::Value* in : n.inputs) {
      if (is_view_of(facts, in, point, false)) return true;
      // `torch.stack(channels[:3])`, `torch.cat([x[:, :3], ...])`: the list holds the parts.
      if (in->producer != nullptr && in->producer->kind == "prim::ListConstruct")
        for (const ir::Value* item : in->producer->inputs)
          if (is_view_of(facts, item, point, false)) return true;
    }
  }
  return false;
}

// The model states the point's scale, and at it 0 and 1 are exact: the mask survives the shared
// scale, and the data's range is what it would have been anyway (a C++ program's
// `fake_quantize_per_tensor_affine(x, 0.05, ...)`; eq-nonzero-const is silent there too).
bool mask_exact_at_stated_scale(const analysis::Facts& facts, const std::string& point) {
  const analysis::QuantPoint* p = facts.quant_point(point);
  if (p == nullptr || !p->scale) return false;
  const float scale = static_cast<float>(*p->scale);
  return analysis::fake_quantize(1.0f, scale, p->zero_point, p->quant_min, p->quant_max) == 1.0f &&
         analysis::fake_quantize(0.0f, scale, p->zero_point, p->quant_min, p->quant_max) == 0.0f;
}

// Whether every use tests the mask against 0 (`mask == 0`, `mask != 0`, `mask.to(torch.bool)`):
// a 1 rounded to 0.99633 is still told from 0; only a step over 2 rounds it to 0.
bool only_tested_against_zero(const analysis::Facts& facts, const std::vector<MaskUse>& uses) {
  return std::all_of(uses.begin(), uses.end(), [&](const MaskUse& u) {
    if (!u.comparison || u.threshold || u.node != u.consumer) return false;
    if (is_bool_cast(facts, *u.node)) return true;
    if (!analysis::is_comparison_op(u.node->kind) || u.node->inputs.size() < 2) return false;
    const auto constant = analysis::scalar_constant(u.node->inputs[static_cast<size_t>(1 - u.operand)]);
    return constant && *constant == 0;
  });
}

// What the shared scale does to the mask: concrete when the model states the scale.
// `zero_tests`: the mask is only tested against 0 (only_tested_against_zero).
std::string consequence(const analysis::Facts& facts, const std::string& point, bool zero_tests) {
  const analysis::QuantPoint* p = facts.quant_point(point);
  if (p == nullptr || !p->scale)
    return "large data rounds the mask's 1s to 0, and tiny data loses its precision to the 1s";
  float one = analysis::fake_quantize(1.0f, static_cast<float>(*p->scale), p->zero_point, p->quant_min, p->quant_max);
  const std::string at =
      "at its scale " + format_number(*p->scale) + " the mask value 1.0 quantizes to " + format_number_unlike(one, 1.0);
  // Public round 18's transformer: "1.0 quantizes to 0.99633" for a mask only tested with `== 0`,
  // which that cannot change; what can is data wide enough to round the 1s to 0.
  if (zero_tests && one != 0.0f)
    return at +
           ", still told from 0 by the test against 0; data whose range makes the step 2 or more would round the "
           "1s to 0";
  return at;
}

// PyTorch's fixed-qparams fake quant, which eager QAT gives nn.Softmax, Sigmoid, Tanh and
// Hardsigmoid: the op's output range sets its scale (1/256 for a softmax), not the data, so a
// threshold on a part of it moves no more for the other parts, and a stub of its own would have
// the same scale (public round 17's SSD: "the data's range sets its step 0.0039062").
bool has_fixed_scale(const analysis::Facts& facts, const std::string& point) {
  const ir::ModuleInfo* module = facts.model().find_module(point);
  return module != nullptr && module->class_name.find("FixedQParamsFakeQuantize") != std::string::npos;
}

// What the shared scale does to a mask made by a threshold: the data's range sets the step, and
// rounding moves values by up to half of it, across the threshold.
std::string threshold_consequence(const analysis::Facts& facts, const std::string& point) {
  const analysis::QuantPoint* p = facts.quant_point(point);
  std::string step = p && p->scale ? "its step " + format_number(*p->scale) : "the step";
  return "the data's range sets " + step + ", and values within half a step of the threshold land on its other side";
}

// A layer's output fake quant has no float tensor before it that the user's code could read: the
// mask's channels need a layer of their own (a detection head's objectness split from its boxes;
// public round 19's YOLOv3 was told to "compute the mask from the float tensor").
std::string advice(const analysis::Facts& facts, const std::string& point) {
  if (facts.is_module_output_quant_point(point))
    if (auto layer = facts.output_quant_point_owner(point))
      return "; give the channels used as a mask a layer of their own (split `self." + *layer +
             "` in two), so that their output gets a scale of its own";
  return "; compute the mask from the float tensor and give it " + ir::spelling(facts.model()).its_own_stub;
}

std::string message(const analysis::Facts& facts, const analysis::QuantCall& call, const std::string& how,
                    bool threshold, bool zero_tests = false) {
  const analysis::QuantPoint* p = facts.quant_point(call.point);
  std::string what = threshold ? " quantizes the source of a mask together with other data ("
                               : " quantizes a 0/1 mask together with other data (";
  return (p ? analysis::describe(*p) : "`" + call.point + "`") + what + how + "), so both share one scale: " +
         (threshold ? threshold_consequence(facts, call.point) : consequence(facts, call.point, zero_tests)) +
         advice(facts, call.point);
}

// Where the message says the mask is made: "is used as a mask on line 17", or for a threshold
// "becomes a mask through `>` on line 17".
std::string how_it_becomes_a_mask(const MaskUse& use, const ir::SourceLoc& here) {
  ir::SourceLoc where = best_location(*use.node);
  std::string line = where.known() ? " on " + ir::line_seen_from(where, here) : std::string();
  if (use.whole_call) return "this call's tensor is used as a mask" + line + ", and another call's as data";
  if (!use.threshold) return "a part of its output is used as a mask" + line;
  std::string how = analysis::is_comparison_op(use.node->kind) ? "`" + ir::operator_spelling(use.node->kind) + "`"
                                                               : std::string("a bool cast");
  return "a part of its output becomes a mask through " + how + line;
}

// Takes the mask from the float tensor: a compared part is recomputed from the stub's float
// input; a part used as a float mask is recomputed there and given a stub of its own.
// Recomputes operand `operand` of the consumer from the stub's float input and gives it a new
// stub of its own.
std::optional<Edit> own_stub_from_float(const analysis::Facts& facts, const ir::Node& consumer, int operand,
                                        std::string* refusal = nullptr) {
  auto edit = reroot_edit(facts, consumer, operand, refusal);
  auto stub = edit ? quantize_operand_edit(facts, consumer, operand, false) : std::nullopt;
  // A reroot+quantize does not inline the helper a consumer sits in: its new stub needs a method.
  if (!stub || stub->inline_call != nullptr || edit->inline_call != nullptr) return std::nullopt;
  edit->quantize_after_reroot = true;
  edit->template_stub = stub->template_stub;
  edit->new_stub = stub->new_stub;
  edit->new_stub_owner = stub->new_stub_owner;
  return edit;
}

// Compared parts: each comparison reads its part's float shadow, all in one fix (a second mask
// taken from the same stub would otherwise keep the finding). A part used as a float mask (S5):
// both parts get their own stub from the float tensor, so neither sets the other's scale (tiny
// data keeps its precision, and the mask's 1s stay exact).
std::optional<Fix> mask_path_fix(const analysis::Facts& facts, const std::vector<MaskUse>& uses, std::string& refusal) {
  const MaskUse& first = uses.front();
  if (first.comparison) {
    // Every comparison or none: a mask left on the stub keeps the finding, and a fix for only
    // some of them would be offered (and applied) as if it resolved it (a loop's comparison
    // whose float twin would copy a layer, zoo/helpers_and_loops).
    std::vector<Edit> edits;
    for (const MaskUse& use : uses) {
      if (!use.comparison) continue;
      auto edit = reroot_edit(facts, *use.consumer, use.operand, &refusal);
      if (!edit) return std::nullopt;
      edits.push_back(*edit);
    }
    if (edits.empty()) return std::nullopt;
    const std::string from = " from the float input of " + ir::spelling(facts.model()).the_stub;
    return safe_fix(
        edits.size() == 1 ? "take the mask" + from : "take the " + std::to_string(edits.size()) + " masks" + from,
        edits);
  }
  auto mask = own_stub_from_float(facts, *first.consumer, first.operand, &refusal);
  if (!mask) return std::nullopt;
  std::vector<Edit> edits = {*mask};
  if (auto data = own_stub_from_float(facts, *first.consumer, 1 - first.operand)) edits.push_back(*data);
  const ir::Spelling& words = ir::spelling(facts.model());
  return safe_fix(
      edits.size() == 2
          ? "take the mask and the data from the float input of " + words.the_stub + ", each with " + words.own_stub
          : "take the mask from the float input of " + words.the_stub + " and give it " + words.own_stub,
      edits);
}

// Form (a) where the joined tensor is only used whole (a layer reads the mask as a feature
// channel): that layer has one input scale, so separate stubs before the `cat` would be joined
// onto one grid again; the mask must be passed beside the data.
// Where its columns are read back instead (`d.select(1, 0) * d.select(1, 1)` after a dequantize,
// public C++ round 18), qlint does not tell which of them is the mask, and says that.
Diagnostic joined_mask_diagnostic(const analysis::Facts& facts, const PointUsers& users,
                                  const analysis::QuantCall& call) {
  Diagnostic d = quant_call_diagnostic(shared_stub_mask_rule(), facts, call,
                                       message(facts, call, "its input concatenates them", false));
  const std::vector<const ir::Node*>& readers = users.of(call.view_key);
  const bool read_back = std::any_of(readers.begin(), readers.end(), [&](const ir::Node* n) {
    return std::any_of(n->inputs.begin(), n->inputs.end(),
                       [&](const ir::Value* in) { return is_view_of(facts, in, call.view_key, true); });
  });
  d.notes.push_back(read_back
                        ? "no automatic fix: its columns are read back, and qlint does not tell which of them "
                          "the mask is; pass the mask beside the data, with its own stub, and gate the data with it"
                        : "no automatic fix: the joined tensor is used whole, as one input with one scale; pass "
                          "the mask beside the data, with its own stub, and gate the data with it");
  return d;
}

std::vector<Diagnostic> check(const analysis::Facts& facts) {
  std::vector<Diagnostic> out;
  // Each call's tensor is examined for masks on its own (Facts::views_of knows the views of a
  // reused stub's calls apart), and once: a stub applied past the limit of its own views shares
  // one key, and was a quadratic scan when examined per call (10,000 applications). The data
  // may come from any call: the calls share the stub's one scale.
  std::set<std::string> examined;
  const PointUsers users(facts);
  for (const auto& call : facts.quant_calls()) {
    const bool joined = quantizes_cat_of_mask_and_data(facts, call);
    if (!joined && !examined.insert(call.view_key).second) continue;
    std::vector<MaskUse> mask_uses = mask_uses_of_parts(facts, users, call.view_key);
    if (mask_uses.empty() && !joined) mask_uses = whole_call_mask_uses(facts, users, call);
    // A stated scale at which 0 and 1 are exact (a C++ program's
    // `at::quantize_per_tensor(torch::cat({data, mask}), 0.01, 0, torch::kQInt8)`): the mask's
    // values stay 0 and 1 on the shared grid, and the data's step is the stated one with or
    // without the mask, as eq-nonzero-const finds too.
    if (joined && mask_exact_at_stated_scale(facts, call.point)) continue;
    if (joined && mask_uses.empty()) {
      out.push_back(joined_mask_diagnostic(facts, users, call));
      continue;
    }
    // A joined call quantizes data by construction (the cat's other parts): its mask column read
    // back and compared (`q.index({Slice(), -1}) != 1`, public round 19) needs no other use as data.
    if (mask_uses.empty() || (!joined && !used_as_data(facts, users, call.point, mask_uses))) continue;
    const MaskUse* mask_use = &mask_uses.front();
    if (!joined && !mask_use->threshold && mask_exact_at_stated_scale(facts, call.point)) continue;
    if (!joined && mask_use->threshold && has_fixed_scale(facts, call.point)) continue;
    const std::string how =
        joined ? "its input concatenates them" : how_it_becomes_a_mask(*mask_use, quant_call_location(facts, call));
    Diagnostic d = quant_call_diagnostic(shared_stub_mask_rule(), facts, call,
                                         message(facts, call, how, !joined && mask_use->threshold,
                                                 !joined && only_tested_against_zero(facts, mask_uses)));
    d.evidence_node = mask_use->node;
    std::string refusal;
    if (mask_use->whole_call && !mask_use->comparison)
      d.notes.push_back("reused-stub's fix at this call gives the mask a quant point of its own, exact for 0 and 1");
    else if (auto fix = mask_path_fix(facts, mask_uses, refusal))
      d.fixes.push_back(*fix);
    else if (!refusal.empty())
      d.notes.push_back(refusal);
    out.push_back(d);
  }
  return out;
}

}  // namespace

const Rule& shared_stub_mask_rule() {
  static const Rule rule = [] {
    Rule r;
    r.id = "shared-stub-mask";
    r.summary = "one QuantStub quantizes a 0/1 mask together with other data";
    r.severity = Severity::Warning;
    r.check = check;
    r.doc.what =
        "A quant point whose tensor holds both a 0/1 mask and other data: a `cat`/`stack` of a "
        "mask (a bool tensor cast to float) with data going into one stub, or a stub output "
        "whose slice is compared with 0/1 or multiplied as a mask while the rest is used as "
        "data. A slice that becomes a mask through any comparison with a constant (`==`, `!=`, "
        "`>`, `<`, `>=`, `<=`, e.g. a confidence score `x[..., -1] > 0.5`) or a bool cast counts "
        "too, when the result is then used as a mask (a `*`, `torch.where`, `masked_fill`, "
        "`masked_select` or boolean indexing, also through `~`, casts and views); a threshold "
        "whose result is only counted or returned is not this rule's business. A stub applied to "
        "data and then to a whole 0/1 mask (`mask = self.quant(mask)`, compared with 0 or 1, cast back with "
        "`.to(torch.bool)`, or made an additive attention bias `(1.0 - mask) * -10000.0`, which is 0 only where the "
        "mask is exactly 1) counts too: its calls share one scale (not FX's own shared fake quants, nor a module's "
        "output). So does a bool mask cast to float through the data's stub (`self.quant(valid.float())`, then "
        "`p * v`), once its dtype is known (`--input`, an FX or ONNX export), and a float input that held only 0 "
        "and 1 in every batch of `--input` (a padding mask given as floats, `self.quant(pad)`): reused-stub's fix "
        "gives that call a quant point of its own, exact for 0 and 1. With "
        "`--input`, a comparison with 1 in which the simulation saw values other than 0 and 1 (`ids != pad_idx` "
        "with pad id 1 on token ids) is no mask channel: it counts only as a threshold, where its result is used as a "
        "mask. A threshold on the output of a fixed-scale fake quant (eager QAT's `FixedQParamsFakeQuantize` of "
        "`nn.Softmax` or `nn.Sigmoid`: scale 1/256 whatever the data) does not count: the data sets no step there. "
        "Nor does a quant point that states a scale at which 0 and 1 are exact (a C++ program's "
        "`at::quantize_per_tensor(torch::cat({data, mask}, 1), 0.01, 0, torch::kQInt8)`): the mask stays 0/1 "
        "and the data's step is the stated one with or without it.";
    r.doc.why =
        "A stub has one scale, `max(|x|) / 32767.5` for int16, and the data sets it. With "
        "data up to 70000 the scale is 2.136, and round(1 / 2.136) = 0: every 1 in the mask "
        "becomes 0 and whatever it gates is zeroed. With tiny data (|x| < 0.01) the mask's 1s "
        "set the scale instead and the data keeps only a few of its 16 bits. A threshold moves "
        "with the data's step as well: rounding shifts every value by up to half a step, so a "
        "score of exactly 0.5 next to data up to 4.0 becomes 0.50001 and `> 0.5` keeps what the "
        "float model drops.";
    r.doc.example =
        "    x = self.quant(x)                          # x[..., -1] is a 0/1 mask\n"
        "    mask = torch.logical_not(x[:, :, :, -1] == 0).to(torch.float)\n"
        "    out = x * self.quant_mask(mask)[:, :, :, None]";
    r.doc.fix =
        "Take the mask from the float tensor, before the stub, and give it its own stub:\n"
        "    mask = (x[:, :, :, -1] != 0).to(torch.float)\n"
        "    data = self.quant(x)\n"
        "    out = data * self.quant_mask(mask)[:, :, :, None]\n"
        "A threshold the same way: `keep = x[:, :, -1] > 0.5` on the float `x`, before the stub. "
        "`--fix` compares the compared part's float shadow instead: the same computation from the "
        "stub's float input, also inside child modules and helper functions (passed down as an "
        "extra argument), loops (a loop-carried twin), branches (a twin out of each block) and "
        "calls of the module holding the stub (a twin returned beside its result). "
        "Where a part is used as a float mask of another part (S5), both parts "
        "are taken from the float tensor, each with a stub of its own, so that tiny data no "
        "longer shares its scale with the mask's 1s:\n"
        "    data = self.data_quant(x_float[:, :, :, :-1])\n"
        "    mask = self.mask_quant(x_float[:, :, :, -1])";
    r.doc.fix_safety =
        "Safe: in float the mask computed before the stub is the same, and stubs are the "
        "identity; only the quantized model changes, for the better (the new stubs calibrate "
        "on purpose to their own ranges). Every mask taken from the stub is fixed at once, a comparison "
        "in disguise (`(1.0 - m).to(torch.bool)`) and a bias made of it (`(1.0 - m) * -10000.0`, then added "
        "to the quantized scores in float: unquantized-operand says to keep it out of the quantized domain) too. A "
        "`cat` of a mask with data into one stub is fixed "
        "where a part of it is used as a mask afterwards; a joined tensor used only whole (a layer reads "
        "the mask as a feature channel) has no automatic fix: that layer has one input scale, so the "
        "mask must be passed beside the data.";
    r.onnx_fix =
        "`--fix` makes the comparison or bool cast that makes the mask read the float twin of its operand (the value "
        "before the QDQ pair, through copies of the ops between), unless that would leave a float operand no edit can "
        "quantize exactly (a mask channel used as a factor, S5), which `--fix` then says. Safe: a QDQ pair is the "
        "identity in float.";
    r.cxx.summary = "one quantize call quantizes a 0/1 mask together with other data";
    r.cxx.what =
        "A quantizing call whose tensor holds both a 0/1 mask and other data: a `torch::cat` of a mask "
        "with data into one call, or a call's output whose slice is compared with a constant or used "
        "as a mask while the rest is used as data.";
    r.cxx.why =
        "A quantize call has one scale, and the data sets it: with data up to 70000 the int16 scale is "
        "2.136 and round(1 / 2.136) = 0, so every 1 of the mask becomes 0. With tiny data the mask's 1s "
        "set the scale instead and the data keeps only a few of its 16 bits.";
    r.cxx.example =
        "    torch::Tensor x = seed::quantize_int16(input);  // its last channel is a 0/1 mask\n"
        "    torch::Tensor mask = x.index({Slice(), Slice(), Slice(), -1}) != 0;";
    r.cxx.fix =
        "Take the mask from the float tensor and give it its own quantize call; where the mask and the "
        "data are both slices of the tensor, each gets its own call, so the data stays quantized:\n"
        "    torch::Tensor mask = input.index({Slice(), Slice(), Slice(), -1}) != 0;";
    r.cxx.fix_safety =
        "Safe where the quantize call takes only the tensor: read as the identity, the mask is the same "
        "in float. Only the mask's path is rewritten; every other use of the quantized tensor keeps it.";
    return r;
  }();
  return rule;
}

}  // namespace qlint::rules
