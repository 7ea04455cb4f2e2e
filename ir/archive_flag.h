// The `--archive NAME=PATH` that a C++ note asks for, as the user would type it.
#pragma once

#include <algorithm>
#include <cctype>
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

}  // namespace qlint::ir
