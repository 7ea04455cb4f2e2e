#include "ir/display.h"

#include <cctype>
#include <filesystem>

namespace qlint::ir {

namespace fs = std::filesystem;

std::string display_path(const std::string& path) {
  std::error_code ec;
  fs::path p(path);
  if (!p.is_absolute()) return path;
  fs::path cwd = fs::current_path(ec);
  if (ec) return path;
  fs::path rel = p.lexically_relative(cwd);
  if (rel.empty() || *rel.begin() == "..") return path;
  return rel.string();
}

std::string display_location(const SourceLoc& loc) {
  if (!loc.known()) return "(no source location)";
  return display_path(loc.file) + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column);
}

std::string source_function_name(const std::string& name) {
  static const std::string kCopy = "__qlint_float_";
  std::string out;
  for (size_t i = 0; i < name.size();) {
    if (name.compare(i, kCopy.size(), kCopy) == 0) {
      size_t end = i + kCopy.size();
      while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
      if (end > i + kCopy.size()) {
        i = end;
        continue;
      }
    }
    out += name[i++];
  }
  return out;
}

std::string first_line(const std::string& text) {
  size_t start = text.find_first_not_of(" \n");
  if (start == std::string::npos) return "";
  return text.substr(start, text.find('\n', start) - start);
}

}  // namespace qlint::ir
