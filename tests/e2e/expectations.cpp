#include "expectations.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "run.h"

namespace qlint::testing {

std::map<std::string, std::vector<Expected>> read_expectations(const std::string& file_name) {
  std::ifstream in(std::string(QLINT_E2E_DIR) + "/" + file_name);
  std::map<std::string, std::vector<Expected>> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string model, rule, location;
    fields >> model >> rule >> location;
    auto& list = out[model];
    if (rule != "-") list.push_back({rule, location});
  }
  return out;
}

std::string location_of(const nlohmann::json& d) {
  if (d["file"].is_null()) return "(none)";
  return d["file"].get<std::string>() + ":" + std::to_string(d["line"].get<int>()) + ":" +
         std::to_string(d["column"].get<int>()) + "-" + std::to_string(d["end_line"].get<int>()) + ":" +
         std::to_string(d["end_column"].get<int>());
}

namespace {

std::string line_of(const std::string& location) {
  auto dash = location.rfind('-');
  if (dash == std::string::npos) return location;  // "(none)"
  std::string start = location.substr(0, dash);    // file:line:col
  return start.substr(0, start.rfind(':'));
}

}  // namespace

Findings findings_of(const nlohmann::json& doc) {
  Findings out;
  for (const auto& d : doc["diagnostics"]) out.insert({d["rule"], location_of(d)});
  return out;
}

Findings lines_of(const nlohmann::json& doc) {
  Findings out;
  for (const auto& d : doc["diagnostics"]) out.insert({d["rule"], line_of(location_of(d))});
  return out;
}

Findings lines_of(const std::vector<Expected>& expected) {
  Findings out;
  for (const auto& e : expected) out.insert({e.rule, line_of(e.location)});
  return out;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void expect_every_example_exported_or_exempt(
    const std::vector<std::string>& sets, const std::string& flag,
    const std::function<std::string(const std::string& set, const std::string& stem)>& exported) {
  namespace fs = std::filesystem;
  for (const auto& set : sets)
    for (const auto& entry : fs::directory_iterator(fs::path(QLINT_SOURCE_DIR) / "examples" / set)) {
      if (entry.path().extension() != ".py") continue;
      SCOPED_TRACE(entry.path().string());
      std::string source = read_text(entry.path().string());
      bool exempt = source.find("\n" + flag + " = False") != std::string::npos ||
                    source.find("\ndef build(") != std::string::npos;
      bool has_export = fs::exists(exported(set, entry.path().stem().string()));
      EXPECT_NE(has_export, exempt) << (has_export ? "exported, but says it cannot be" : "has no export");
    }
}

nlohmann::json check_example_json(const std::string& model) {
  auto r = run_qlint({"check", "--format", "json", "--quant-stub-class", "ToolchainQuantStub", model});
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << model << ": " << r.err;
  return nlohmann::json::parse(r.out.empty() ? "{\"diagnostics\": []}" : r.out);
}

}  // namespace qlint::testing
