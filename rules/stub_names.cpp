#include "rules/stub_names.h"

#include <map>
#include <set>
#include <string>

namespace qlint::rules {

namespace {

// The names handed out so far and the module paths of the model, looked up by name; and for
// each base name the next suffix to try, so that 20,000 fixes proposing `mask_quant` cost
// linear time (trying `_1`, `_2`, ... from the start each time was quadratic).
struct Names {
  std::set<std::string> taken;             // "owner.name": modules of the model and names given
  std::map<std::string, int> next_suffix;  // "owner.base" -> the first suffix not yet tried
};

std::string unique_name(Names& names, const Edit& edit) {
  auto path = [&](const std::string& name) {
    return edit.new_stub_owner.empty() ? name : edit.new_stub_owner + "." + name;
  };
  std::string name = edit.new_stub;
  int& n = names.next_suffix[path(edit.new_stub)];
  if (n > 0) name = edit.new_stub + "_" + std::to_string(n);
  for (; names.taken.count(path(name)); name = edit.new_stub + "_" + std::to_string(n)) ++n;
  names.taken.insert(path(name));
  return name;
}

void fill_in_placeholder(std::string& description, const std::string& name) {
  const std::string placeholder = kNewStubPlaceholder;
  for (auto at = description.find(placeholder); at != std::string::npos; at = description.find(placeholder, at))
    description.replace(at, placeholder.size(), name);
}

}  // namespace

void name_new_stubs(const ir::Model& model, std::vector<Diagnostic>& diagnostics) {
  Names names;
  for (const auto& module : model.modules) names.taken.insert(module.path);
  for (auto& d : diagnostics)
    for (auto& fix : d.fixes)
      for (auto& edit : fix.edits) {
        if (!edit.creates_stub()) continue;
        edit.new_stub = unique_name(names, edit);
        fill_in_placeholder(fix.description, edit.new_stub);
      }
}

}  // namespace qlint::rules
