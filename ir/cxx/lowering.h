// Lowers the tensor code of a translation unit's functions into qlint's IR: one Function per
// C++ function with a body in the main file, LibTorch's operators and methods as the aten:: ops
// the other front ends produce, and each quantizing call as a quant point of its own. Used by
// the LibTooling front end (ir/cxx/importer.h) and the compiler plugin.
#pragma once

#include <clang/AST/ASTContext.h>

#include "ir/cxx/options.h"
#include "ir/ir.h"

namespace qlint::cxx {

ir::Model lower_translation_unit(clang::ASTContext& context, const Options& options);

}  // namespace qlint::cxx
