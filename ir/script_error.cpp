#include "ir/script_error.h"

#include <regex>
#include <sstream>
#include <vector>

#include "ir/display.h"

namespace qlint::ir {

namespace {

// Frames of PyTorch's own Python (torch/nn/modules/linear.py, ...) are where the error
// surfaced, not where the user can change anything.
bool is_library_frame(const std::string& file) {
  return file.find("/site-packages/") != std::string::npos || file.find("/dist-packages/") != std::string::npos;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

std::string library_message(const std::string& what) {
  std::vector<std::string> lines;
  for (std::string& line : lines_of(what)) {
    size_t begin = line.find_first_not_of(" \t\r");
    if (begin == std::string::npos) continue;
    size_t end = line.find_last_not_of(" \t\r");
    lines.push_back(line.substr(begin, end - begin + 1));
    if (lines.size() == 2 || lines.back().back() != ':') break;
  }
  std::string out;
  for (const std::string& line : lines) out += (out.empty() ? "" : " ") + line;
  return out.size() > 300 ? out.substr(0, 297) + "..." : out;
}

ScriptError parse_script_error(const std::string& what) {
  static const std::regex frame(R"re(^\s*File "([^"]+)", line (\d+))re");
  const std::vector<std::string> lines = lines_of(what);
  ScriptError error;
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    if (it->find_first_not_of(" \t") != std::string::npos) {
      error.message = *it;
      break;
    }
  bool original = false;
  for (const auto& line : lines) {
    if (line.find("Traceback of TorchScript, original code") != std::string::npos) original = true;
    std::smatch m;
    if (!original || !std::regex_search(line, m, frame)) continue;
    if (error.line > 0 && is_library_frame(m[1])) continue;  // keep the innermost user frame
    error.file = m[1];
    try {
      error.line = std::stoi(m[2]);
    } catch (const std::exception&) {
      error.line = 0;  // a line number too large for int: no line rather than a wrong one
    }
  }
  if (error.message.empty()) error.message = "the model failed without a message";
  return error;
}

std::string describe_script_error(const std::string& what) {
  ScriptError error = parse_script_error(what);
  if (error.line <= 0) return error.message;
  return error.message + " (at " + display_path(error.file) + ":" + std::to_string(error.line) + ")";
}

}  // namespace qlint::ir
