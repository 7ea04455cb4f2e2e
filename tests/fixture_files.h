// Finding and reading the text-IR fixtures under tests/fixtures.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace qlint::testing {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Sorted paths of the *.qir files in tests/fixtures/<subdir>.
inline std::vector<std::string> fixture_files(const std::string& subdir) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(QLINT_FIXTURES_DIR) + "/" + subdir))
    if (entry.path().extension() == ".qir") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// gtest parameter names must be alphanumeric: "eq_nonzero_const.qir" -> "eq_nonzero_const".
inline std::string fixture_test_name(const std::string& path) {
  std::string stem = std::filesystem::path(path).stem().string();
  for (char& c : stem)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return stem;
}

}  // namespace qlint::testing
