// Names for the stubs that fixes create, chosen once per model: the rules propose base names
// (`mask_quant`), this makes them unique on their module (`mask_quant_1` when `mask_quant`
// exists or another fix took it) and writes the final name into each fix's description. The
// rewriter, `--diff`, SARIF and JSON all use the names as they come out of here.
#pragma once

#include <vector>

#include "ir/ir.h"
#include "rules/diagnostic.h"

namespace qlint::rules {

void name_new_stubs(const ir::Model& model, std::vector<Diagnostic>& diagnostics);

}  // namespace qlint::rules
