#include "ir/aten_schemas.h"

#include <map>
#include <mutex>

#include "ir/schema.h"

namespace qlint::ir {

namespace {

const char* const kSchemas[] = {
#include "aten_schemas.inc"
};

struct Known {
  Schema schema;
  const char* text;  // as LibTorch prints it: the spelling the TorchScript importer records
};

// Parsed once, by operator name.
const std::multimap<std::string, Known>& schemas_by_name() {
  static const std::multimap<std::string, Known> by_name = [] {
    std::multimap<std::string, Known> out;
    for (const char* text : kSchemas)
      if (auto schema = parse_schema(text)) {
        std::string name = schema->name;  // before the schema is moved into the map
        out.emplace(std::move(name), Known{std::move(*schema), text});
      }
    return out;
  }();
  return by_name;
}

bool fits(const Schema& schema, const std::vector<std::string>& names, bool method) {
  if (schema.overload == "out" || schema.overload.find("_out") != std::string::npos) return false;
  const size_t skip = method ? 1 : 0;
  if (method && (schema.arguments.empty() || schema.arguments[0].name != "self")) return false;
  if (schema.arguments.size() < skip + names.size()) return false;
  for (size_t i = 0; i < names.size(); ++i)
    if (schema.arguments[skip + i].name != names[i]) return false;
  for (size_t i = skip + names.size(); i < schema.arguments.size(); ++i)
    if (!schema.arguments[i].default_value) return false;
  return true;
}

}  // namespace

std::string matching_schema(const std::string& kind, const std::vector<std::string>& names, bool method) {
  static std::mutex mutex;
  static std::map<std::string, std::string> memo;
  std::string key = kind + (method ? ".method(" : "(");
  for (const auto& n : names) key += n + ",";
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = memo.find(key); it != memo.end()) return it->second;
  std::string found;
  auto [begin, end] = schemas_by_name().equal_range(kind);
  for (auto it = begin; it != end && found.empty(); ++it)
    if (fits(it->second.schema, names, method)) found = it->second.text;
  return memo[key] = found;
}

std::string overload_schema(const std::string& kind, const std::string& overload) {
  auto [begin, end] = schemas_by_name().equal_range(kind);
  for (auto it = begin; it != end; ++it)
    if (it->second.schema.overload == overload) return it->second.text;
  return "";
}

}  // namespace qlint::ir
