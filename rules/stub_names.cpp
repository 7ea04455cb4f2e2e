#include "rules/stub_names.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "ir/ops.h"

namespace qlint::rules {

namespace {

// The names handed out so far and the module paths of the model, looked up by name; and for
// each base name the next suffix to try, so that 20,000 fixes proposing `mask_quant` cost
// linear time (trying `_1`, `_2`, ... from the start each time was quadratic).
struct Names {
  std::set<std::string> taken;             // "owner.name": modules of the model and names given
  std::map<std::string, int> next_suffix;  // "owner.base" -> the first suffix not yet tried
};

std::string unique_name(Names& names, const Edit& edit) {
  auto path = [&](const std::string& name) {
    return edit.new_stub_owner.empty() ? name : edit.new_stub_owner + "." + name;
  };
  std::string name = edit.new_stub;
  int& n = names.next_suffix[path(edit.new_stub)];
  if (n > 0) name = edit.new_stub + "_" + std::to_string(n);
  for (; names.taken.count(path(name)); name = edit.new_stub + "_" + std::to_string(n)) ++n;
  names.taken.insert(path(name));
  return name;
}

// Two fixes that quantize one tensor (`widths` read on two lines, `widths[:, None]` written
// twice) in one method share the new stub: one scale for one set of values, as the user would
// write `widths = self.widths_quant(widths)` once. The edits must make the same kind of stub.
bool quantizes_the_same(const ir::Model& model, const Edit& a, const Edit& b) {
  using K = Edit::Kind;
  if (a.kind != b.kind || (a.kind != K::QuantizeOperand && a.kind != K::NewFakeQuant)) return false;
  if (a.inline_call || b.inline_call || a.fake_quant.replaces_call || b.fake_quant.replaces_call) return false;
  if (a.new_stub_owner != b.new_stub_owner || a.template_stub != b.template_stub ||
      a.cast_to_float != b.cast_to_float || a.fake_quant.mask != b.fake_quant.mask)
    return false;
  if (model.function_of(*a.node) != model.function_of(*b.node)) return false;
  return ir::computes_the_same(a.node->inputs.at(static_cast<size_t>(a.operand)),
                               b.node->inputs.at(static_cast<size_t>(b.operand)));
}

void fill_in_placeholder(std::string& description, const std::string& name) {
  const std::string placeholder = kNewStubPlaceholder;
  for (auto at = description.find(placeholder); at != std::string::npos; at = description.find(placeholder, at))
    description.replace(at, placeholder.size(), name);
}

// What two edits that quantize the same values have in common, cheap to compare: the function,
// the kinds of the ops along the operand's first inputs, and the value those start from. Only
// edits with one key are compared in full (a model with thousands of fixes stays linear).
std::string bucket_of(const ir::Model& model, const Edit& e) {
  std::string key = std::to_string(reinterpret_cast<uintptr_t>(model.function_of(*e.node))) + "|" + e.new_stub_owner +
                    "|" + e.template_stub;
  const ir::Value* v = e.node->inputs.at(static_cast<size_t>(e.operand));
  for (int depth = 0; v != nullptr && v->producer != nullptr && !v->producer->inputs.empty() && depth < 12; ++depth) {
    key += "|" + v->producer->kind;
    v = v->producer->inputs[0];
  }
  const bool constant = v == nullptr || (v->producer != nullptr && v->producer->kind == "prim::Constant");
  return key + "|" + (constant ? "constant" : std::to_string(reinterpret_cast<uintptr_t>(v)));
}

}  // namespace

void name_new_stubs(const ir::Model& model, std::vector<Diagnostic>& diagnostics) {
  Names names;
  for (const auto& module : model.modules) names.taken.insert(module.path);
  std::map<std::string, std::vector<const Edit*>> named;  // by bucket_of
  for (auto& d : diagnostics)
    for (auto& fix : d.fixes)
      for (auto& edit : fix.edits) {
        if (!edit.creates_stub()) continue;
        std::vector<const Edit*>& bucket = named[bucket_of(model, edit)];
        auto same = std::find_if(bucket.begin(), bucket.end(),
                                 [&](const Edit* e) { return quantizes_the_same(model, *e, edit); });
        edit.new_stub = same != bucket.end() ? (*same)->new_stub : unique_name(names, edit);
        bucket.push_back(&edit);
        fill_in_placeholder(fix.description, edit.new_stub);
      }
}

}  // namespace qlint::rules
