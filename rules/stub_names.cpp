#include "rules/stub_names.h"

#include <set>
#include <string>

namespace qlint::rules {

namespace {

std::string unique_name(const ir::Model& model, std::set<std::string>& taken, const Edit& edit) {
  auto path = [&](const std::string& name) {
    return edit.new_stub_owner.empty() ? name : edit.new_stub_owner + "." + name;
  };
  std::string name = edit.new_stub;
  for (int n = 1; model.find_module(path(name)) != nullptr || taken.count(path(name)); ++n)
    name = edit.new_stub + "_" + std::to_string(n);
  taken.insert(path(name));
  return name;
}

void fill_in_placeholder(std::string& description, const std::string& name) {
  const std::string placeholder = kNewStubPlaceholder;
  for (auto at = description.find(placeholder); at != std::string::npos; at = description.find(placeholder, at))
    description.replace(at, placeholder.size(), name);
}

}  // namespace

void name_new_stubs(const ir::Model& model, std::vector<Diagnostic>& diagnostics) {
  std::set<std::string> taken;  // "owner.name" handed out so far
  for (auto& d : diagnostics)
    for (auto& fix : d.fixes)
      for (auto& edit : fix.edits) {
        if (!edit.creates_stub()) continue;
        edit.new_stub = unique_name(model, taken, edit);
        fill_in_placeholder(fix.description, edit.new_stub);
      }
}

}  // namespace qlint::rules
