#include "ir/ops.h"

#include <set>

namespace qlint::ir {

bool returns_values_and_indices(const std::string& kind) {
  static const std::set<std::string> ops = {
      "aten::max",  "aten::min",    "aten::sort",      "aten::topk",   "aten::kthvalue",
      "aten::mode", "aten::median", "aten::nanmedian", "aten::cummax", "aten::cummin",
  };
  return ops.count(kind) > 0;
}

}  // namespace qlint::ir
