#include "ir/traced_stack.h"

#include <sstream>

#include "ir/input_file.h"

namespace qlint::ir {

namespace {

// Where a trailing `# comment` starts (outside string literals), or the line's size.
size_t code_end(const std::string& line) {
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote != 0) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#') {
      return i;
    }
  }
  return line.size();
}

SourceLoc with_statement_columns(SourceLoc loc, SourceLines& lines) {
  std::string line = read_source_line(loc.file, loc.line, "").value_or("");
  if (line.size() > limits().column) return loc;
  size_t first = line.find_first_not_of(" \t");
  if (first == std::string::npos) return loc;
  loc.column = static_cast<int>(first) + 1;
  // A line that is one element of a bracket spread over lines (`a * m,` in `torch.stack([`)
  // ends before its comma; a trailing comment is no part of the statement.
  const std::string code = line.substr(0, code_end(line));
  loc.end_column = static_cast<int>(code.find_last_not_of(" \t\r\n,")) + 2;
  if (loc.end_column <= loc.column) loc.end_column = static_cast<int>(line.find_last_not_of(" \t\r\n")) + 2;
  lines[loc.file][loc.line] = line;
  return loc;
}

}  // namespace

bool is_pytorch_file(const std::string& file) {
  // torchvision's ops too: a traced `batched_nms` records its own lines inside torchvision before
  // the user's call of it (a finding there pointed at torchvision/ops/boxes.py:41).
  return file.find("-packages/torch/") != std::string::npos || file.find("-packages/torchvision/") != std::string::npos;
}

std::optional<SourceLoc> traced_stack_location(const std::string& stack, SourceLines& lines) {
  std::istringstream frames(stack);
  std::string entry;
  std::optional<SourceLoc> first;
  while (std::getline(frames, entry)) {
    auto frame = traced_frame(entry);
    if (!frame) break;  // not a frame, or a line number no file has
    SourceLoc loc;
    loc.file = frame->first;
    loc.line = loc.end_line = frame->second;
    loc.column = loc.end_column = 1;
    if (!is_pytorch_file(loc.file)) {
      loc.called_library = first.has_value();  // PyTorch's frames below the user's line
      return with_statement_columns(loc, lines);
    }
    if (!first) first = loc;
  }
  if (first) return with_statement_columns(*first, lines);
  return std::nullopt;
}

}  // namespace qlint::ir
