// What the analyses know about every value of a model: its tensor dtype and the quant points
// whose rounding error it carries. Rules read these facts; they never recompute them.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace qlint::analysis {

// Which module classes are quant points. Names are matched after normalising TorchScript's
// spelling (the "__torch__." prefix and "___torch_mangle_N." segments are dropped).
struct StubClasses {
  std::vector<std::string> quant = {"torch.ao.quantization.stubs.QuantStub",
                                    "torch.quantization.stubs.QuantStub",
                                    "torch.quantization.QuantStub"};
  std::vector<std::string> dequant = {"torch.ao.quantization.stubs.DeQuantStub",
                                      "torch.quantization.stubs.DeQuantStub",
                                      "torch.quantization.DeQuantStub"};
};

std::string normalize_class_name(const std::string& torchscript_name);

enum class StubKind { None, Quant, DeQuant };

class Facts {
 public:
  // Runs dtype inference and the quant-domain analysis over all functions, interprocedurally,
  // to a fixpoint.
  static Facts compute(const ir::Model& model, const StubClasses& stubs = {});

  ir::DType dtype(const ir::Value* v) const;
  // Quant points (stub instance paths, or "fn:%value" for in-graph quantize ops) whose error
  // this value carries. Bool and integer values carry none: they are exact.
  const std::set<std::string>& quant_sources(const ir::Value* v) const;
  bool quantized(const ir::Value* v) const { return !quant_sources(v).empty(); }

  // For a prim::CallMethod node: whether it calls a QuantStub or DeQuantStub instance.
  StubKind stub_call(const ir::Node& call) const;

  const ir::Model& model() const { return *model_; }
  const ir::Function* function_of(const ir::Node& node) const;

 private:
  friend class FactsSolver;
  const ir::Model* model_ = nullptr;
  std::map<const ir::Value*, ir::DType> dtypes_;
  std::map<const ir::Value*, std::set<std::string>> sources_;
  std::map<std::string, StubKind> stub_modules_;  // instance path -> kind
  std::map<const ir::Block*, const ir::Function*> block_function_;
};

// PyTorch's ScalarType codes as TorchScript spells dtype constants (torch.float is 6).
std::optional<ir::DType> dtype_from_scalar_type_code(int64_t code);

}  // namespace qlint::analysis
