// unused-suppression (opt-in): a `# qlint: ignore` comment that silenced nothing. It needs
// the other rules' results, so the diagnostics filter applies it after them
// (rules/unused_suppression.h).
#include "rules/unused_suppression.h"

#include <algorithm>
#include <optional>
#include <regex>

#include "rules/registry.h"

namespace qlint::rules {

namespace {

// `# qlint: ignore` or `# qlint: ignore[a, b]` anywhere in a line's comment (`// qlint: ignore[...]`
// in C++); `qlint: ignore-next-line[...]` silences the line after it, as clang-tidy's NOLINTNEXTLINE.
std::optional<Suppression> parse_suppression(const std::string& file, int line, const std::string& text) {
  static const std::regex comment(R"((#|//)\s*qlint:\s*ignore(-next-line)?(\[([^\]]*)\])?)");
  std::smatch m;
  // libstdc++'s regex recurses per matched character: no line of real source is this long,
  // and a crafted one would overflow the stack.
  if (text.size() > 4096 || !std::regex_search(text, m, comment)) return std::nullopt;
  Suppression s;
  s.file = file;
  s.line = line;
  s.column = static_cast<int>(m.position(0)) + 1;
  s.end_column = static_cast<int>(m.position(0) + m.length(0)) + 1;
  s.all_rules = !m[3].matched;
  s.spelling = m[1].str() + " qlint: ignore" + m[2].str();
  s.target_line = m[2].matched ? line + 1 : line;
  static const std::regex id(R"([a-z0-9-]+)");
  std::string ids = m[4];
  for (std::sregex_iterator it(ids.begin(), ids.end(), id), end; it != end; ++it) s.rules.insert(it->str());
  return s;
}

}  // namespace

std::vector<Suppression> find_suppressions(const ir::Model& model) {
  std::vector<Suppression> out;
  for (const auto& [file, lines] : model.source_lines)
    for (const auto& [line, text] : lines)
      if (auto s = parse_suppression(file, line, text)) out.push_back(*s);
  return out;
}

bool suppresses(const Suppression& s, const Diagnostic& d) {
  const int last_line = std::max(d.loc.line, d.loc.end_line);
  return s.file == d.loc.file && s.target_line >= d.loc.line && s.target_line <= last_line &&
         (s.all_rules || s.rules.count(d.rule));
}

Diagnostic unused_suppression(const Suppression& s) {
  const Rule& rule = unused_suppression_rule();
  Diagnostic d;
  d.rule = rule.id;
  d.severity = rule.severity;
  d.message = "this `" + s.spelling + "` silences nothing " + (s.target_line == s.line ? "here" : "on the next line") +
              "; remove it so it cannot hide a future finding";
  d.loc = {s.file, s.line, s.column, s.line, s.end_column};
  return d;
}

const Rule& unused_suppression_rule() {
  static const Rule rule = [] {
    Rule r;
    r.id = "unused-suppression";
    r.summary = "a `# qlint: ignore` comment that silences nothing (opt-in)";
    r.severity = Severity::Warning;
    r.check = nullptr;  // run by the diagnostics filter, after the other rules
    r.opt_in = true;
    r.doc.what =
        "A `# qlint: ignore` or `# qlint: ignore[rule-id]` comment on a line of the model's "
        "source where no diagnostic (of the named rules) was silenced.";
    r.doc.why =
        "Suppressions outlive the code they were written for. One that silences nothing today "
        "will silently hide the next real finding on its line.";
    r.doc.example = "    out = x * 2.0  # qlint: ignore[bool-arith]   <- nothing to ignore here";
    r.doc.fix = "Remove the comment, or narrow it to the rule that still fires.";
    r.doc.fix_safety = "No automatic fix: qlint rewrites models, not comments.";
    r.cxx.summary = "a `// qlint: ignore` comment that silences nothing (opt-in)";
    r.cxx.what =
        "A `// qlint: ignore`, `// qlint: ignore[rule-id]` or `// qlint: ignore-next-line[rule-id]` "
        "comment where no finding (of the named rules) was silenced.";
    r.cxx.example = "    torch::Tensor out = x * 2.0;  // qlint: ignore[bool-arith]   <- nothing to ignore here";
    r.cxx.fix = "Remove the comment, or narrow it to the rule that still fires.";
    r.cxx.fix_safety = "No automatic fix.";
    return r;
  }();
  return rule;
}

}  // namespace qlint::rules
