#pragma once

#include <string>
#include <vector>

namespace qlint::rewriter {

// A unified diff (3 lines of context) between two versions of a file's lines, with
// `--- a/PATH` / `+++ b/PATH` headers; "" when they are equal.
std::string unified_diff(const std::string& path, const std::vector<std::string>& before,
                         const std::vector<std::string>& after);

}  // namespace qlint::rewriter
