#include "ir/verifier.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace qlint::ir {

namespace {

class Verifier {
 public:
  Verifier(const Model& model, std::vector<std::string>& problems) : model_(model), problems_(problems) {}

  void function(const Function& f) {
    fn_ = &f;
    defined_.clear();
    seen_.clear();
    users_.clear();
    depth_ = 0;
    block(f.body, "return");
  }

 private:
  void report(const std::string& where, const std::string& message) {
    problems_.push_back("in " + fn_->name + ": " + where + ": " + message);
  }

  // `visible` grows as definitions are met; inner blocks see outer definitions but their own
  // go out of scope when the block ends.
  void block(const Block& b, const char* terminator) {
    std::vector<const Value*> scope;
    for (const Value* p : b.params) define(p, nullptr, scope);
    for (const auto& n : b.nodes) node(*n, scope);
    for (const Value* r : b.returns)
      if (!defined_.count(r)) report(terminator, "uses %" + r->name + " before its definition");
    for (const Value* v : scope) defined_.erase(v);
  }

  // Where a problem is, said only when there is one: the node, or a block parameter (null).
  static std::string where(const Node* n) { return n ? "node " + n->kind : "block parameter"; }

  void define(const Value* v, const Node* n, std::vector<const Value*>& scope) {
    if (!seen_.insert(v).second) report(where(n), "%" + v->name + " is defined twice");
    defined_.insert(v);
    scope.push_back(v);
    check_module_type(v, n);
  }

  void node(const Node& n, std::vector<const Value*>& scope) {
    for (const Value* in : n.inputs) {
      if (!defined_.count(in)) report(where(&n), "uses %" + in->name + " before its definition");
      if (!lists_user(in, &n)) report(where(&n), "%" + in->name + " does not list this node as a user");
    }
    for (const auto& b : n.blocks) {
      if (b->owner != &n) report(where(&n), "a nested block does not point back at its node");
      if (depth_ == kMaxNesting) {
        report(where(&n), "blocks nest deeper than " + std::to_string(kMaxNesting) + " levels");
        return;
      }
      ++depth_;
      block(*b, "block return");
      --depth_;
    }
    for (const Value* out : n.outputs) {
      if (out->producer != &n) report(where(&n), "output %" + out->name + " names another producer");
      define(out, &n, scope);
    }
    const Attr* callee = n.attr("callee");
    if (callee && (callee->kind != Attr::Kind::Str || !model_.find_function(callee->s)))
      report(where(&n), "calls a function that is not in the model");
  }

  // Whether `v` lists `n` among its users: a scan for the few users most values have, a set made
  // once for a value used often (100,000 uses are checked in linear time).
  bool lists_user(const Value* v, const Node* n) {
    constexpr size_t kScanned = 16;
    if (v->users.size() <= kScanned) return std::find(v->users.begin(), v->users.end(), n) != v->users.end();
    auto [it, added] = users_.try_emplace(v);
    if (added) it->second.insert(v->users.begin(), v->users.end());
    return it->second.count(n) > 0;
  }

  void check_module_type(const Value* v, const Node* n) {
    if (v->type.kind == Type::Kind::Module && !model_.find_module(v->type.name))
      report(where(n), "%" + v->name + " names unknown module instance '" + v->type.name + "'");
  }

  const Model& model_;
  std::vector<std::string>& problems_;
  const Function* fn_ = nullptr;
  std::unordered_set<const Value*> defined_;
  std::unordered_set<const Value*> seen_;
  std::unordered_map<const Value*, std::unordered_set<const Node*>> users_;
  int depth_ = 0;
};

// The longest chain of calls, counted in functions, and the function it starts at; a function in
// a cycle of calls (C++ recursion) ends the chain where it would repeat. Iterative: the chain is
// what may be too deep to recurse along.
std::pair<size_t, const Function*> longest_call_chain(const Model& model) {
  std::unordered_map<const Function*, std::vector<const Function*>> callees;
  for (const auto& f : model.functions)
    for_each_node(f->body, [&](const Node& n) {
      if (const Function* callee = callee_of(model, n)) callees[f.get()].push_back(callee);
    });
  enum class State { Open, Done };
  std::unordered_map<const Function*, State> state;
  std::unordered_map<const Function*, size_t> length;  // of the longest chain starting there
  std::pair<size_t, const Function*> longest = {0, nullptr};
  for (const auto& root : model.functions) {
    if (state.count(root.get())) continue;
    std::vector<std::pair<const Function*, size_t>> stack = {{root.get(), 0}};  // function, next callee
    state[root.get()] = State::Open;
    while (!stack.empty()) {
      auto& [f, next] = stack.back();
      const auto& out = callees[f];
      if (next < out.size()) {
        const Function* callee = out[next++];
        if (!state.count(callee)) {
          state[callee] = State::Open;
          stack.push_back({callee, 0});
        }
        continue;
      }
      size_t best = 0;
      for (const Function* callee : out)
        if (state[callee] == State::Done) best = std::max(best, length[callee]);
      length[f] = best + 1;
      state[f] = State::Done;
      if (length[f] > longest.first) longest = {length[f], f};
      stack.pop_back();
    }
  }
  return longest;
}

// The deepest nesting of blocks in `b`, counted without recursion.
int deepest_nesting(const Block& b) {
  int deepest = 0;
  std::vector<std::pair<const Block*, int>> pending = {{&b, 0}};
  while (!pending.empty()) {
    auto [block, depth] = pending.back();
    pending.pop_back();
    deepest = std::max(deepest, depth);
    for (const auto& n : block->nodes)
      for (const auto& inner : n->blocks) pending.push_back({inner.get(), depth + 1});
  }
  return deepest;
}

std::string too_deep_calls(const Model& model) {
  auto [depth, from] = longest_call_chain(model);
  if (depth <= static_cast<size_t>(kMaxCallDepth)) return "";
  return "in " + from->name + ": calls nest deeper than " + std::to_string(kMaxCallDepth) + " levels (" +
         std::to_string(depth) + " functions calling each other)";
}

}  // namespace

std::string beyond_limits(const Model& model) {
  for (const auto& f : model.functions)
    if (deepest_nesting(f->body) > kMaxNesting)
      return "in " + f->name + ": blocks nest deeper than " + std::to_string(kMaxNesting) + " levels";
  return too_deep_calls(model);
}

std::vector<std::string> verify(const Model& model) {
  std::vector<std::string> problems;
  std::unordered_set<std::string> names;
  Verifier verifier(model, problems);
  for (const auto& f : model.functions) {
    if (!names.insert(f->name).second) problems.push_back("function " + f->name + " is defined twice");
    verifier.function(*f);
  }
  if (std::string too_deep = too_deep_calls(model); !too_deep.empty()) problems.push_back(too_deep);
  return problems;
}

}  // namespace qlint::ir
