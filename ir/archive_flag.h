// The `--archive NAME=PATH` that a C++ note asks for, as the user would type it.
#pragma once

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>

namespace qlint::ir {

// "`--archive model_path=PATH`"; in single quotes when NAME holds anything a shell would read
// (`argv[1]`, `dir + "/model.pt"`), as the note for a missing archive quotes its literal:
// "`--archive 'argv[1]=PATH'`".
inline std::string archive_flag(const std::string& name) {
  const bool plain = std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == ':' || c == '.' || c == '/' || c == '-';
  });
  if (plain) return "`--archive " + name + "=PATH`";
  std::string quoted;
  for (char c : name) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return "`--archive '" + quoted + "=PATH'`";
}

// Whether one checked file holds every function (by qualified name) whose parameter or local a
// bare `--archive NAME` would name, given the files (by index) each function is in: then that
// file's reader sees them together and the bare name applies to all of them; else it is
// ambiguous (ir/cxx/importer.cpp, and the notes that ask for a qualified name).
inline bool one_file_holds_all(const std::map<std::string, std::set<size_t>>& files_by_function) {
  if (files_by_function.empty()) return true;
  const auto& first = files_by_function.begin()->second;
  return std::any_of(first.begin(), first.end(), [&](size_t file) {
    return std::all_of(files_by_function.begin(), files_by_function.end(),
                       [&](const auto& f) { return f.second.count(file) > 0; });
  });
}

}  // namespace qlint::ir
