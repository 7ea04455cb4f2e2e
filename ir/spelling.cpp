#include "ir/spelling.h"

#include "ir/ops.h"

namespace qlint::ir {

const Spelling& spelling(const Model& model) {
  static const Spelling python{"`.to(torch.float)`",     "QuantStub", "a QuantStub of its own",
                               "its own QuantStub",      "torch.",    "the QuantStub",
                               "`torch.round(x).long()`"};
  static const Spelling cxx{"`.to(torch::kFloat)`",
                            "quantize call",
                            "a quantize call of its own",
                            "its own quantize call",
                            "torch::",
                            "the quantize call",
                            "`torch::round(x).to(torch::kLong)`"};
  return model.language == Language::Cxx ? cxx : python;
}

std::string op_spelling(const Model& model, const std::string& kind) {
  return spelling(model).op_prefix + base_op(kind);
}

}  // namespace qlint::ir
