// What `qlint --fix` and `--diff` print about the rewrite: the fixes, the verification
// (float identity, simulated before/after), the Python suggestion, and where it was written.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "rewriter/rewriter.h"

namespace qlint::cli {

std::string render_fix_text(const std::string& model, const rewriter::FixResult& result, bool diff_only);
nlohmann::json render_fix_json(const std::string& model, const rewriter::FixResult& result);

}  // namespace qlint::cli
