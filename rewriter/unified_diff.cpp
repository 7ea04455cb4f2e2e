#include "rewriter/unified_diff.h"

#include <algorithm>
#include <sstream>

namespace qlint::rewriter {

namespace {

enum class Op { Keep, Remove, Add };

struct Line {
  Op op;
  size_t before;  // index in `before` (Keep, Remove) or insertion point
  size_t after;   // index in `after` (Keep, Add) or insertion point
};

// Longest-common-subsequence edit script; source files are small, so O(n*m) is fine.
std::vector<Line> edit_script(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::vector<int>> lcs(a.size() + 1, std::vector<int>(b.size() + 1, 0));
  for (size_t i = a.size(); i-- > 0;)
    for (size_t j = b.size(); j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::vector<Line> script;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (i < a.size() && j < b.size() && a[i] == b[j]) {
      script.push_back({Op::Keep, i++, j++});
    } else if (i < a.size() && (j == b.size() || lcs[i + 1][j] >= lcs[i][j + 1])) {
      script.push_back({Op::Remove, i++, j});  // removals first, as diff(1) shows them
    } else {
      script.push_back({Op::Add, i, j++});
    }
  }
  return script;
}

}  // namespace

std::string unified_diff(const std::string& path, const std::vector<std::string>& before,
                         const std::vector<std::string>& after) {
  std::vector<Line> script = edit_script(before, after);
  const size_t context = 3;
  std::ostringstream out;
  size_t k = 0;
  bool any = false;
  while (k < script.size()) {
    if (script[k].op == Op::Keep) {
      ++k;
      continue;
    }
    // A hunk: from `context` kept lines before this change to `context` after the last change
    // that is at most 2 * context kept lines from the previous one.
    size_t start = k >= context ? k - context : 0;
    while (start < k && script[start].op != Op::Keep) ++start;
    size_t end = k;
    size_t kept_run = 0;
    for (size_t m = k; m < script.size(); ++m) {
      if (script[m].op == Op::Keep) {
        if (++kept_run > 2 * context) break;
      } else {
        kept_run = 0;
        end = m;
      }
    }
    size_t stop = std::min(script.size(), end + 1 + context);
    size_t before_start = script[start].before, after_start = script[start].after;
    size_t before_count = 0, after_count = 0;
    for (size_t m = start; m < stop; ++m) {
      if (script[m].op != Op::Add) ++before_count;
      if (script[m].op != Op::Remove) ++after_count;
    }
    if (!any) out << "--- a/" << path << "\n+++ b/" << path << "\n";
    any = true;
    out << "@@ -" << before_start + (before_count ? 1 : 0) << "," << before_count << " +"
        << after_start + (after_count ? 1 : 0) << "," << after_count << " @@\n";
    for (size_t m = start; m < stop; ++m) {
      const Line& l = script[m];
      if (l.op == Op::Keep) out << " " << before[l.before] << "\n";
      if (l.op == Op::Remove) out << "-" << before[l.before] << "\n";
      if (l.op == Op::Add) out << "+" << after[l.after] << "\n";
    }
    k = stop;
  }
  return out.str();
}

}  // namespace qlint::rewriter
