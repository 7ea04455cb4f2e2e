#include "analysis/facts.h"

#include <algorithm>
#include <regex>

#include "analysis/dtype.h"
#include "analysis/quant_domain.h"

namespace qlint::analysis {

std::string normalize_class_name(const std::string& torchscript_name) {
  static const std::regex mangle(R"(___torch_mangle_\d+\.)");
  std::string name = std::regex_replace(torchscript_name, mangle, "");
  const std::string prefix = "__torch__.";
  if (name.rfind(prefix, 0) == 0) name = name.substr(prefix.size());
  return name;
}

std::optional<ir::DType> dtype_from_scalar_type_code(int64_t code) {
  using D = ir::DType;
  switch (code) {
    case 0: return D::UInt8;
    case 1: return D::Int8;
    case 2: return D::Int16;
    case 3: return D::Int32;
    case 4: return D::Int64;
    case 5: return D::Float16;
    case 6: return D::Float32;
    case 7: return D::Float64;
    case 11: return D::Bool;
    case 12: return D::QInt8;
    case 13: return D::QUInt8;
    case 14: return D::QInt32;
    case 15: return D::BFloat16;
    default: return std::nullopt;
  }
}

// Forward dataflow over all functions at once: call sites feed callee parameters, callee
// returns feed call outputs, and If/Loop blocks join their branches. Facts only grow (dtypes
// towards Unknown, source sets towards larger), so repeating whole passes reaches a fixpoint.
class FactsSolver {
 public:
  FactsSolver(Facts& facts, const StubClasses& stubs) : facts_(facts), stubs_(stubs) {}

  void run() {
    classify_stub_modules();
    map_blocks();
    // Each pass settles at least one more call level; the cap only guards against bugs.
    for (int pass = 0; pass < 100; ++pass) {
      changed_ = false;
      for (const auto& f : facts_.model_->functions) block(f->body);
      if (!changed_) return;
    }
  }

 private:
  void classify_stub_modules() {
    for (const auto& m : facts_.model_->modules) {
      std::string cls = normalize_class_name(m.class_name);
      auto matches = [&](const std::vector<std::string>& names) {
        return std::find(names.begin(), names.end(), cls) != names.end();
      };
      if (matches(stubs_.quant)) facts_.stub_modules_[m.path] = StubKind::Quant;
      else if (matches(stubs_.dequant)) facts_.stub_modules_[m.path] = StubKind::DeQuant;
    }
  }

  void map_blocks() {
    for (const auto& f : facts_.model_->functions) {
      facts_.block_function_[&f->body] = f.get();
      ir::for_each_node(f->body, [&](const ir::Node& n) {
        for (const auto& b : n.blocks) facts_.block_function_[b.get()] = f.get();
      });
    }
  }

  ir::DType dtype(const ir::Value* v) const { return facts_.dtype(v); }

  void join(const ir::Value* to, const ir::Value* from) {
    join_dtype(to, dtype(from));
    join_sources(to, facts_.quant_sources(from));
  }

  void join_dtype(const ir::Value* v, ir::DType d) {
    auto [it, inserted] = facts_.dtypes_.emplace(v, d);
    if (inserted) {
      changed_ = true;
    } else if (it->second != d && it->second != ir::DType::Unknown) {
      it->second = ir::DType::Unknown;
      changed_ = true;
    }
  }

  void join_sources(const ir::Value* v, const std::set<std::string>& sources) {
    if (sources.empty() || !can_carry_quantization(v->type, dtype(v))) return;
    auto& mine = facts_.sources_[v];
    size_t before = mine.size();
    mine.insert(sources.begin(), sources.end());
    if (mine.size() != before) changed_ = true;
  }

  void block(const ir::Block& b) {
    for (const auto& n : b.nodes) node(*n);
  }

  void node(const ir::Node& n) {
    if (n.kind == "prim::If") return if_node(n);
    if (n.kind == "prim::Loop") return loop_node(n);
    if (const ir::Function* callee = ir::callee_of(*facts_.model_, n)) return call_node(n, *callee);
    for (const auto& b : n.blocks) block(*b);
    plain_node(n);
  }

  void if_node(const ir::Node& n) {
    for (const auto& b : n.blocks) {
      block(*b);
      for (size_t i = 0; i < n.outputs.size() && i < b->returns.size(); ++i)
        join(n.outputs[i], b->returns[i]);
    }
  }

  // prim::Loop(max_trip_count, initial_condition, carried...) with a body
  // block(iteration, carried...) -> (condition, carried...).
  void loop_node(const ir::Node& n) {
    if (n.blocks.size() != 1) return plain_node(n);
    const ir::Block& body = *n.blocks[0];
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      if (i + 2 < n.inputs.size() && i + 1 < body.params.size()) join(body.params[i + 1], n.inputs[i + 2]);
      if (i + 1 < body.returns.size() && i + 1 < body.params.size()) join(body.params[i + 1], body.returns[i + 1]);
    }
    block(body);
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      if (i + 2 < n.inputs.size()) join(n.outputs[i], n.inputs[i + 2]);
      if (i + 1 < body.returns.size()) join(n.outputs[i], body.returns[i + 1]);
    }
  }

  void call_node(const ir::Node& n, const ir::Function& callee) {
    StubKind stub = facts_.stub_call(n);
    std::vector<ir::Value*> args = ir::call_arguments(n);
    if (stub == StubKind::Quant && args.size() >= 2 && n.outputs.size() == 1) {
      join_dtype(n.outputs[0], dtype(args[1]));
      join_sources(n.outputs[0], {args[0]->type.name});
      return;
    }
    for (size_t i = 0; i < args.size() && i < callee.body.params.size(); ++i)
      join(callee.body.params[i], args[i]);
    for (size_t i = 0; i < n.outputs.size() && i < callee.body.returns.size(); ++i)
      join(n.outputs[i], callee.body.returns[i]);
  }

  void plain_node(const ir::Node& n) {
    auto dtype_of = [this](const ir::Value* v) { return dtype(v); };
    std::set<std::string> sources;
    if (is_in_graph_quant_op(n.kind) && n.outputs.size() == 1) {
      sources.insert(facts_.function_of(n)->name + ":%" + n.outputs[0]->name);
    } else {
      for (const ir::Value* in : n.inputs) {
        const auto& s = facts_.quant_sources(in);
        sources.insert(s.begin(), s.end());
      }
    }
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      join_dtype(n.outputs[i], infer_output_dtype(n, i, dtype_of));
      join_sources(n.outputs[i], sources);
    }
  }

  Facts& facts_;
  const StubClasses& stubs_;
  bool changed_ = false;
};

Facts Facts::compute(const ir::Model& model, const StubClasses& stubs) {
  Facts facts;
  facts.model_ = &model;
  FactsSolver(facts, stubs).run();
  return facts;
}

ir::DType Facts::dtype(const ir::Value* v) const {
  auto it = dtypes_.find(v);
  if (it != dtypes_.end()) return it->second;
  return v->type.dtype;
}

const std::set<std::string>& Facts::quant_sources(const ir::Value* v) const {
  static const std::set<std::string> none;
  auto it = sources_.find(v);
  if (it == sources_.end() || !can_carry_quantization(v->type, dtype(v))) return none;
  return it->second;
}

StubKind Facts::stub_call(const ir::Node& call) const {
  if (call.kind != "prim::CallMethod" || call.inputs.empty()) return StubKind::None;
  const ir::Type& self = call.inputs[0]->type;
  if (self.kind != ir::Type::Kind::Module) return StubKind::None;
  auto it = stub_modules_.find(self.name);
  return it == stub_modules_.end() ? StubKind::None : it->second;
}

const ir::Function* Facts::function_of(const ir::Node& node) const {
  auto it = block_function_.find(node.owner);
  return it == block_function_.end() ? nullptr : it->second;
}

}  // namespace qlint::analysis
