#include "ir/torchscript/source_location.h"

#include <torch/csrc/jit/ir/ir.h>

#include <algorithm>
#include <optional>

#include "ir/input_file.h"
#include "ir/source_text.h"
#include "ir/traced_stack.h"

namespace qlint::torchscript {

namespace {

namespace jit = torch::jit;

// Loaded archives keep the original range in their debug info; the node's own range points
// into the serialized code/ file instead.
std::optional<jit::SourceRange> user_range(const jit::Node& n) {
  const jit::SourceRange& own = n.sourceRange();
  if (!own.source()) return std::nullopt;
  // The debug info is unpickled lazily, here: corrupt debug info means "location unknown".
  // (probe_archive has already refused or stripped debug info that would crash LibTorch.)
  jit::SourceRange range = own;
  try {
    range = own.findSourceRangeThatGenerated().value_or(own);
  } catch (...) {
    return std::nullopt;
  }
  const auto& source = range.source();
  if (!source || !source->filename()) return std::nullopt;
  if (source->filename()->rfind("code/__torch__", 0) == 0) return std::nullopt;
  return range;
}

// Whether the range is a stack torch.jit.trace recorded: its first line is a frame.
bool is_traced_stack(const jit::SourceRange& range) {
  // The first line decides, without copying a scripted range's whole text (every node has one).
  const jit::StringCordView text = range.text();
  const size_t first_end = std::min(text.find("\n", 0), text.size());
  return ir::traced_frame(text.substr(0, std::min<size_t>(first_end, 4096)).str(), true).has_value();
}

// torch.jit.trace records Python stack frames, not source: the range's text is a stack,
// innermost first (ir::traced_stack_location). `traced` says whether the range is a stack at all:
// one whose first frame is out of bounds (a line number past the limit) has no location, rather
// than the stack's text as its source.
std::optional<ir::SourceLoc> traced_location(const jit::SourceRange& range, SourceLines& lines, bool& traced) {
  traced = is_traced_stack(range);
  if (!traced) return std::nullopt;
  return ir::traced_stack_location(range.text().str(), lines);
}

void remember_line(jit::Source& source, size_t line, SourceLines& lines) {
  std::string& remembered = lines[*source.filename()][static_cast<int>(source.lineno_to_source_lineno(line))];
  if (!remembered.empty()) return;  // many nodes share a line
  std::string text = source.get_line(line).str();
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  remembered = std::move(text);
}

// The range's location, or nullopt when its numbers do not fit its source (debug info that
// survived the probe but lies: offsets past the text, line numbers past the limit).
std::optional<ir::SourceLoc> scripted_location(const jit::SourceRange& range, SourceLines& lines) {
  const auto& source = range.source();
  if (range.start() > range.end() || range.end() > source->size() + 1) return std::nullopt;
  size_t first = source->lineno_for_offset(range.start());
  size_t last = source->lineno_for_offset(range.end() > range.start() ? range.end() - 1 : range.start());
  const uint64_t max_line = std::min<uint64_t>(ir::limits().line, INT32_MAX / 2);
  const uint64_t max_column = std::min<uint64_t>(ir::limits().column, INT32_MAX / 2);
  uint64_t line = source->lineno_to_source_lineno(first), end_line = source->lineno_to_source_lineno(last);
  uint64_t column = range.start() - source->offset_for_line(first) + 1;
  uint64_t end_column = range.end() - source->offset_for_line(last) + 1;
  if (line > max_line || end_line > max_line || column > max_column || end_column > max_column) return std::nullopt;
  ir::SourceLoc loc;
  loc.file = *source->filename();
  loc.line = static_cast<int>(line);
  loc.column = static_cast<int>(column);
  loc.end_line = static_cast<int>(end_line);
  loc.end_column = static_cast<int>(end_column);
  for (size_t l = first; l <= last && l < first + 1000; ++l) remember_line(*source, l, lines);
  if (loc.line == loc.end_line) loc = ir::complete_range(lines[loc.file][loc.line], loc);
  return loc;
}

}  // namespace

bool recorded_by_trace(const jit::Node& node) {
  try {
    auto range = user_range(node);
    return range && is_traced_stack(*range);
  } catch (const std::exception&) {
    return false;
  }
}

ir::SourceLoc source_location(const jit::Node& node, SourceLines& lines) {
  try {
    auto range = user_range(node);
    if (!range) return {};
    bool traced = false;
    if (auto loc = traced_location(*range, lines, traced)) return *loc;
    if (traced) return {};
    return scripted_location(*range, lines).value_or(ir::SourceLoc{});
  } catch (const std::exception&) {  // c10::Error, std::out_of_range from corrupt debug info
    return {};
  }
}

}  // namespace qlint::torchscript
