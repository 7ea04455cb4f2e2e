#include "analysis/value_flow.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "analysis/constants.h"

namespace qlint::analysis {

namespace {

// A value, or one element of a tuple or list value (`element` >= 0).
struct Place {
  const ir::Value* value = nullptr;
  int element = -1;
  bool operator<(const Place& other) const { return std::tie(value, element) < std::tie(other.value, other.element); }
};

class Tracer {
 public:
  Tracer(const Facts& facts, const UseVisitor& visit) : facts_(facts), visit_(visit) {}

  bool run(const ir::Value* start) {
    add({start, -1});
    for (size_t i = 0; i < pending_.size() && i < kBudget; ++i) {
      const Place at = pending_[i];
      out_of_blocks(at);
      for (const ir::Node* user : at.value->users)
        if (facts_.is_live(*user) && step(*user, at)) return true;
    }
    return false;
  }

 private:
  static constexpr size_t kBudget = 1024;

  void add(Place p) {
    if (seen_.insert(p).second) pending_.push_back(p);
  }

  // True when the use was found.
  bool step(const ir::Node& user, const Place& at) {
    if (const ir::Function* callee = ir::callee_of(facts_.model(), user)) {
      into_callee(user, *callee, at);
      return false;
    }
    if (user.kind == "prim::SetAttr" && user.inputs.size() == 2 && user.inputs[1] == at.value) {
      reads_of(user, at.element);
      return false;
    }
    if (container_step(user, at)) return false;
    // A list holding the value used as a whole (`x[mask]` passes `[mask]` to `index`): the visitor
    // sees the list, and nothing made of it is followed.
    if (at.element >= 0) return visit_(user, at.value) == Use::Found;
    switch (visit_(user, at.value)) {
      case Use::Found:
        return true;
      case Use::Follow:
        for (const ir::Value* out : user.outputs) add({out, -1});
        return false;
      case Use::Ignore:
        return false;
    }
    return false;
  }

  void into_callee(const ir::Node& call, const ir::Function& callee, const Place& at) {
    std::vector<ir::Value*> args = ir::call_arguments(call);
    for (size_t a = 0; a < args.size() && a < callee.body.params.size(); ++a)
      if (args[a] == at.value) add({callee.body.params[a], at.element});
  }

  // `(mask, features)` built, unpacked, indexed: the element keeps being the value.
  bool container_step(const ir::Node& user, const Place& at) {
    const std::string& k = user.kind;
    if ((k == "prim::TupleConstruct" || k == "prim::ListConstruct") && at.element < 0 && user.output() != nullptr) {
      for (size_t i = 0; i < user.inputs.size(); ++i)
        if (user.inputs[i] == at.value) add({user.output(), static_cast<int>(i)});
      return true;
    }
    if (k == "prim::TupleUnpack" || k == "prim::ListUnpack") {
      if (at.element >= 0 && static_cast<size_t>(at.element) < user.outputs.size())
        add({user.outputs[static_cast<size_t>(at.element)], -1});
      return true;
    }
    if ((k == "prim::TupleIndex" ||
         (k == "aten::__getitem__" && !user.inputs.empty() && user.inputs[0]->type.kind != ir::Type::Kind::Tensor)) &&
        user.inputs.size() == 2 && user.inputs[0] == at.value && user.output() != nullptr) {
      auto index = scalar_constant(user.inputs[1]);
      if (at.element >= 0 && index && static_cast<int>(*index) == at.element) add({user.output(), -1});
      return true;
    }
    return false;
  }

  // Every read of the module attribute or object field `store` writes.
  void reads_of(const ir::Node& store, int element) {
    const auto key = attribute_key(store);
    if (!key) return;
    index_model();
    auto [begin, end] = reads_.equal_range(*key);
    for (auto it = begin; it != end; ++it) add({it->second->output(), element});
  }

  // Attribute reads by key, call sites by callee and functions by body, gathered once per trace
  // the first time a value reaches a store or a return.
  void index_model() {
    if (indexed_) return;
    indexed_ = true;
    for (const auto& f : facts_.model().functions) {
      function_of_body_[&f->body] = f.get();
      ir::for_each_node(f->body, [&](const ir::Node& n) {
        if (n.kind == "prim::GetAttr" && n.output() != nullptr)
          if (auto key = attribute_key(n)) reads_.emplace(*key, &n);
        if (const ir::Function* callee = ir::callee_of(facts_.model(), n); callee && facts_.is_live(n))
          calls_.emplace(callee, &n);
      });
    }
  }

  // A value an `if` block returns is the `if`'s result; one a function returns is the output of
  // every call of it.
  void out_of_blocks(const Place& at) {
    const ir::Value* v = at.value;
    const ir::Block* block = v->producer != nullptr ? v->producer->owner : v->param_of;
    if (block == nullptr) return;
    for (size_t r = 0; r < block->returns.size(); ++r) {
      if (block->returns[r] != v) continue;
      if (block->owner != nullptr && block->owner->kind == "prim::If" && r < block->owner->outputs.size())
        add({block->owner->outputs[r], at.element});
      if (block->owner == nullptr) to_call_sites(*block, r, at.element);
    }
  }

  void to_call_sites(const ir::Block& body, size_t r, int element) {
    index_model();
    auto fn = function_of_body_.find(&body);
    if (fn == function_of_body_.end()) return;
    auto [begin, end] = calls_.equal_range(fn->second);
    for (auto it = begin; it != end; ++it)
      if (r < it->second->outputs.size()) add({it->second->outputs[r], element});
  }

  const Facts& facts_;
  const UseVisitor& visit_;
  std::vector<Place> pending_;
  bool indexed_ = false;
  std::multimap<std::string, const ir::Node*> reads_;
  std::multimap<const ir::Function*, const ir::Node*> calls_;
  std::map<const ir::Block*, const ir::Function*> function_of_body_;
  std::set<Place> seen_;
};

}  // namespace

bool find_use(const Facts& facts, const ir::Value* start, const UseVisitor& visit) {
  return Tracer(facts, visit).run(start);
}

}  // namespace qlint::analysis
