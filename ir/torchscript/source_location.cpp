#include "ir/torchscript/source_location.h"

#include <torch/csrc/jit/ir/ir.h>

#include <fstream>
#include <optional>
#include <regex>
#include <sstream>

#include "ir/source_text.h"

namespace qlint::torchscript {

namespace {

namespace jit = torch::jit;

// Loaded archives keep the original range in their debug info; the node's own range points
// into the serialized code/ file instead.
std::optional<jit::SourceRange> user_range(const jit::Node& n) {
  const jit::SourceRange& own = n.sourceRange();
  if (!own.source()) return std::nullopt;
  jit::SourceRange range = own.findSourceRangeThatGenerated().value_or(own);
  const auto& source = range.source();
  if (!source || !source->filename()) return std::nullopt;
  if (source->filename()->rfind("code/__torch__", 0) == 0) return std::nullopt;
  return range;
}

bool is_pytorch_file(const std::string& file) { return file.find("-packages/torch/") != std::string::npos; }

std::string read_source_line(const std::string& file, int wanted) {
  std::ifstream in(file);
  std::string line;
  for (int i = 1; std::getline(in, line); ++i)
    if (i == wanted) return line;
  return "";
}

ir::SourceLoc with_statement_columns(ir::SourceLoc loc, SourceLines& lines) {
  std::string line = read_source_line(loc.file, loc.line);
  size_t first = line.find_first_not_of(" \t");
  if (first == std::string::npos) return loc;
  loc.column = static_cast<int>(first) + 1;
  loc.end_column = static_cast<int>(line.find_last_not_of(" \t\r\n")) + 2;
  lines[loc.file][loc.line] = line;
  return loc;
}

// torch.jit.trace records Python stack frames, not source: the range's text is a stack,
// innermost first, of lines like "/src/model.py(13): forward". The user's frame is the
// first outside PyTorch's own package. Columns are unknown, so the location covers the
// statement on that line, read from the file when it still exists.
std::optional<ir::SourceLoc> traced_location(const jit::SourceRange& range, SourceLines& lines) {
  static const std::regex frame(R"(^(.*)\((\d+)\): (\S+)$)");
  std::istringstream stack(range.text().str());
  std::string entry;
  std::optional<ir::SourceLoc> first;
  while (std::getline(stack, entry)) {
    std::smatch m;
    if (!std::regex_match(entry, m, frame)) break;
    ir::SourceLoc loc;
    loc.file = m[1];
    loc.line = loc.end_line = std::stoi(m[2]);
    loc.column = loc.end_column = 1;
    if (!first) first = loc;
    if (!is_pytorch_file(loc.file)) return with_statement_columns(loc, lines);
  }
  if (first) return with_statement_columns(*first, lines);
  return std::nullopt;
}

void remember_line(jit::Source& source, size_t line, SourceLines& lines) {
  std::string text = source.get_line(line).str();
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  lines[*source.filename()][static_cast<int>(source.lineno_to_source_lineno(line))] = text;
}

}  // namespace

ir::SourceLoc source_location(const jit::Node& node, SourceLines& lines) {
  auto range = user_range(node);
  if (!range) return {};
  if (auto traced = traced_location(*range, lines)) return *traced;
  const auto& source = range->source();
  size_t first = source->lineno_for_offset(range->start());
  size_t last = source->lineno_for_offset(range->end() > range->start() ? range->end() - 1 : range->start());
  ir::SourceLoc loc;
  loc.file = *source->filename();
  loc.line = static_cast<int>(source->lineno_to_source_lineno(first));
  loc.column = static_cast<int>(range->start() - source->offset_for_line(first)) + 1;
  loc.end_line = static_cast<int>(source->lineno_to_source_lineno(last));
  loc.end_column = static_cast<int>(range->end() - source->offset_for_line(last)) + 1;
  for (size_t line = first; line <= last; ++line) remember_line(*source, line, lines);
  if (loc.line == loc.end_line) loc = ir::complete_range(lines[loc.file][loc.line], loc);
  return loc;
}

}  // namespace qlint::torchscript
