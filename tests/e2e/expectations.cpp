#include "expectations.h"

#include <fstream>
#include <sstream>

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

}  // namespace qlint::testing
