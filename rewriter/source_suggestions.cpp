#include "rewriter/source_suggestions.h"

#include <algorithm>
#include <optional>
#include <fstream>
#include <regex>

#include "rewriter/unified_diff.h"
#include "rules/support.h"

namespace qlint::rewriter {

namespace {

std::string where(const ir::SourceLoc& loc) {
  return loc.known() ? loc.file + ":" + std::to_string(loc.line) : "a node without source location";
}

// `mask[:, None]` can take `.to(...)` as it is; `a > b` needs parentheses first.
std::string as_float(const std::string& text) {
  static const std::regex simple(R"(^[A-Za-z_][\w.]*(\[[^\]]*\]|\([^)]*\))*$)");
  return (std::regex_match(text, simple) ? text : "(" + text + ")") + ".to(torch.float)";
}

std::string parent_path(const std::string& path) {
  auto dot = path.rfind('.');
  return dot == std::string::npos ? "" : path.substr(0, dot);
}

std::string last_component(const std::string& path) { return path.substr(path.rfind('.') + 1); }

const std::string* string_attr(const ir::Node& node, const char* name) {
  const ir::Attr* a = node.attr(name);
  return a != nullptr && a->kind == ir::Attr::Kind::Str ? &a->s : nullptr;
}

// The module whose `self` a node's source line means: what the front end recorded (FX inlines
// submodules into one graph), else the module of the IR function that holds the node. None
// when the line is in a function without a module `self`.
std::optional<std::string> module_of(const ir::Model& model, const ir::Node& node) {
  if (const std::string* recorded = string_attr(node, "module")) return *recorded;
  if (string_attr(node, "scope") != nullptr) return std::nullopt;  // recorded: no module there
  const ir::Function* fn = model.function_of(node);
  if (fn == nullptr) return std::nullopt;
  return fn->module_path;
}

// Whether two nodes come from one Python function of one module instance, as far as the front
// end says; TorchScript's IR already keeps functions apart.
bool same_python_function(const ir::Node& a, const ir::Node& b) {
  const std::string* scope_a = string_attr(a, "scope");
  const std::string* scope_b = string_attr(b, "scope");
  if (scope_a == nullptr || scope_b == nullptr) return true;
  const std::string* module_a = string_attr(a, "module");
  const std::string* module_b = string_attr(b, "module");
  bool same_module = module_a && module_b ? *module_a == *module_b : module_a == module_b;
  return *scope_a == *scope_b && same_module;
}

}  // namespace

std::string StubNames::for_edit(const Edit& edit) {
  std::string owner, base;
  if (edit.kind == Edit::Kind::CloneStub) {
    owner = parent_path(edit.template_stub);
    base = edit.name_hint;
  } else if (edit.kind == Edit::Kind::QuantizeOperand || (edit.kind == Edit::Kind::Reroot && edit.quantize_after_reroot)) {
    owner = module_of(model_, *edit.node).value_or("");
    base = edit.name_hint + "_quant";
  } else {
    return "";
  }
  auto path = [&](const std::string& name) { return owner.empty() ? name : owner + "." + name; };
  std::string name = base;
  for (int n = 1; model_.find_module(path(name)) != nullptr || taken_.count(path(name)); ++n)
    name = base + "_" + std::to_string(n);
  taken_.insert(path(name));
  return name;
}

const std::vector<std::string>* SourceFiles::lines(const std::string& path) {
  auto [it, added] = files_.try_emplace(path);
  if (added) {
    std::ifstream in(path);
    if (in) {
      it->second.emplace();
      for (std::string line; std::getline(in, line);) it->second->push_back(line);
    }
  }
  return it->second ? &*it->second : nullptr;
}

SourceSuggestions::FileEdits* SourceSuggestions::file(const std::string& path) {
  auto it = files_.find(path);
  if (it != files_.end()) return &it->second;
  const std::vector<std::string>* lines = sources_->lines(path);
  if (lines == nullptr) {
    if (missing_.insert(path).second)
      notes_.push_back(path + " is not on disk, so there is no Python suggestion for it");
    return nullptr;
  }
  FileEdits edits;
  edits.lines = *lines;
  return &files_.emplace(path, std::move(edits)).first->second;
}

void SourceSuggestions::replace(const std::string& path, const ir::SourceLoc& loc, const std::string& text) {
  FileEdits* f = file(path);
  if (f == nullptr) return;
  for (const auto& r : f->replaces) {
    if (r.line != loc.line || r.end_column <= loc.column || loc.end_column <= r.column) continue;
    if (r.column == loc.column && r.end_column == loc.end_column && r.text == text) return;
    notes_.push_back("two rewrites touch " + where(loc) + "; the suggestion shows the first");
    return;
  }
  f->replaces.push_back({loc.line, loc.column, loc.end_column, text});
}

void SourceSuggestions::insert(std::map<int, std::vector<std::string>>& where_to, int line, const std::string& text) {
  auto& lines = where_to[line];
  if (std::find(lines.begin(), lines.end(), text) == lines.end()) lines.push_back(text);
}

// The name the float input of a stub call has in Python. For `x = self.quant(x)` the name is
// rebound to the quantized value, so the suggestion keeps a float alias: `x_float = x`.
std::string SourceSuggestions::float_name_for(const ir::Model& model, const ir::Node& stub_call) {
  static const std::regex assignment(R"(^(\s*)([A-Za-z_]\w*)\s*=\s*self\.[\w.]+\(\s*([A-Za-z_]\w*)\s*\)\s*(#.*)?$)");
  const ir::SourceLoc& loc = stub_call.loc;
  const std::string* line = loc.known() ? model.source_line(loc.file, loc.line) : nullptr;
  std::smatch m;
  if (line == nullptr || !std::regex_match(*line, m, assignment)) return "";
  std::string out = m[2], in = m[3];
  if (out != in) return in;
  if (FileEdits* f = file(loc.file)) insert(f->insert_before, loc.line, std::string(m[1]) + in + "_float = " + in);
  return in + "_float";
}

// Rewrites the start of the view chain, `x[:, :, :, -1]` after `x = self.quant(x)`, to read
// the float alias instead.
bool SourceSuggestions::reroot_root_name(const ir::Model& model, const Edit& edit) {
  static const std::regex assignment(R"(^\s*([A-Za-z_]\w*)\s*=\s*self\.)");
  const ir::Node& stub_call = *edit.stub_call;
  const std::string* stub_line =
      stub_call.loc.known() ? model.source_line(stub_call.loc.file, stub_call.loc.line) : nullptr;
  std::smatch m;
  if (!stub_call.loc.known()) {
    notes_.push_back("no Python suggestion for the rewrite at " + where(edit.node->loc) +
                     ": the model was traced, and traces record source lines but not expressions");
    return false;
  }
  if (!same_python_function(stub_call, *edit.node)) {
    notes_.push_back("no Python suggestion for the rewrite at " + where(edit.node->loc) +
                     ": the stub call is in another Python function, whose float input this one cannot name");
    return false;
  }
  if (stub_line == nullptr || !std::regex_search(*stub_line, m, assignment)) {
    notes_.push_back("no Python suggestion for the rewrite at " + where(edit.node->loc) +
                     ": the stub call is not a plain `name = self.stub(name)`");
    return false;
  }
  const std::string quantized_name = m[1];
  std::string float_name = float_name_for(model, stub_call);
  const ir::Value* v = edit.node->inputs.at(static_cast<size_t>(edit.operand));
  for (int depth = 0; v && v->producer && v->producer != &stub_call && depth < 32; ++depth) {
    const ir::SourceLoc& loc = v->producer->loc;
    std::string text = rules::source_text(model, loc);
    if (!float_name.empty() && text.rfind(quantized_name, 0) == 0 &&
        (text.size() == quantized_name.size() || !(std::isalnum(static_cast<unsigned char>(text[quantized_name.size()])) ||
                                                    text[quantized_name.size()] == '_'))) {
      ir::SourceLoc name_loc = loc;
      name_loc.end_column = loc.column + static_cast<int>(quantized_name.size());
      replace(loc.file, name_loc, float_name);
      return true;
    }
    v = v->producer->inputs.empty() ? nullptr : v->producer->inputs[0];
  }
  notes_.push_back("no Python suggestion for the rewrite at " + where(edit.node->loc) +
                   ": its source does not name `" + quantized_name + "`");
  return false;
}

// Adds `self.NAME = QuantStub()` next to the template stub's line in __init__, when the new
// stub lives on the same module as the template.
void SourceSuggestions::add_stub_to_init(const std::string& near_file, const std::string& template_stub,
                                         const std::string& stub_name, const std::string& owner_path) {
  if (parent_path(template_stub) != owner_path) {
    notes_.push_back("add `self." + stub_name + " = QuantStub()` to the __init__ of the module `" + owner_path + "`");
    return;
  }
  FileEdits* f = file(near_file);
  if (f == nullptr) return;
  const std::regex declaration("^(\\s*)self\\." + last_component(template_stub) +
                               "\\s*=\\s*([\\w.]*QuantStub\\([^)]*\\))\\s*(#.*)?$");
  for (size_t i = 0; i < f->lines.size(); ++i) {
    std::smatch m;
    if (!std::regex_match(f->lines[i], m, declaration)) continue;
    insert(f->insert_after, static_cast<int>(i) + 1, std::string(m[1]) + "self." + stub_name + " = " + std::string(m[2]));
    return;
  }
  notes_.push_back("add `self." + stub_name + " = QuantStub()` to __init__ (no `self." + last_component(template_stub) +
                   " = QuantStub()` line found in " + near_file + ")");
}

void SourceSuggestions::add(const ir::Model& model, const Edit& edit, const std::string& stub_name) {
  const std::optional<std::string> module = module_of(model, *edit.node);
  if (!module && edit.kind != Edit::Kind::CompareWithZero)
    return notes_.push_back("no Python suggestion for the rewrite at " + where(edit.node->loc) +
                            ": it is not in a method of one of the model's modules");
  const std::string owner = module.value_or("");
  switch (edit.kind) {
    case Edit::Kind::Reroot: {
      if (!reroot_root_name(model, edit) || !edit.quantize_after_reroot) return;
      auto loc = rules::operand_location(model, *edit.node, static_cast<size_t>(edit.operand));
      if (!loc) return notes_.push_back("no Python suggestion for the new stub at " + where(edit.node->loc));
      replace(loc->file, *loc, "self." + stub_name + "(" + rules::source_text(model, *loc) + ")");
      return add_stub_to_init(loc->file, edit.template_stub, stub_name, owner);
    }
    case Edit::Kind::QuantizeOperand: {
      auto loc = rules::operand_location(model, *edit.node, static_cast<size_t>(edit.operand));
      if (!loc) return notes_.push_back("no Python suggestion for the new stub at " + where(edit.node->loc));
      std::string text = rules::source_text(model, *loc);
      replace(loc->file, *loc, "self." + stub_name + "(" + (edit.cast_to_float ? as_float(text) : text) + ")");
      return add_stub_to_init(loc->file, edit.template_stub, stub_name, owner);
    }
    case Edit::Kind::CompareWithZero: {
      auto operand_loc = rules::operand_location(model, *edit.node, static_cast<size_t>(edit.operand));
      if (!operand_loc || !edit.node->loc.known())
        return notes_.push_back("no Python suggestion for the comparison at " + where(edit.node->loc));
      std::string x = rules::source_text(model, *operand_loc);
      bool is_eq = edit.node->kind == "aten::eq";
      return replace(edit.node->loc.file, edit.node->loc, is_eq ? "torch.logical_not(" + x + " == 0)" : "(" + x + " == 0)");
    }
    case Edit::Kind::CloneStub: {
      // The call's range is `self.quant` (TorchScript) or `self.quant(x)` (FX): rename the stub.
      ir::SourceLoc loc = edit.node->loc;
      const std::string callee = "self." + last_component(edit.template_stub);
      std::string text = rules::source_text(model, loc);
      if (text != callee && text.rfind(callee + "(", 0) != 0)
        return notes_.push_back("no Python suggestion for the cloned stub at " + where(loc));
      loc.end_column = loc.column + static_cast<int>(callee.size());
      replace(loc.file, loc, "self." + stub_name);
      return add_stub_to_init(loc.file, edit.template_stub, stub_name, parent_path(edit.template_stub));
    }
  }
}

std::string SourceSuggestions::diff(const std::function<std::string(const std::string&)>& display) const {
  std::string out;
  for (const auto& [path, f] : files_) {
    std::vector<std::string> after;
    for (size_t i = 0; i < f.lines.size(); ++i) {
      int line = static_cast<int>(i) + 1;
      if (auto it = f.insert_before.find(line); it != f.insert_before.end())
        after.insert(after.end(), it->second.begin(), it->second.end());
      std::string text = f.lines[i];
      std::vector<Replace> here;
      for (const auto& r : f.replaces)
        if (r.line == line) here.push_back(r);
      std::sort(here.begin(), here.end(), [](const Replace& a, const Replace& b) { return a.column > b.column; });
      for (const auto& r : here)
        text.replace(static_cast<size_t>(r.column - 1), static_cast<size_t>(r.end_column - r.column), r.text);
      after.push_back(text);
      if (auto it = f.insert_after.find(line); it != f.insert_after.end())
        after.insert(after.end(), it->second.begin(), it->second.end());
    }
    out += unified_diff(display(path), f.lines, after);
  }
  return out;
}

// Lines inserted after line L and before line L+1 both go in at the start of L+1, in the
// order diff() shows them; after the last line, they go at its end.
std::map<std::string, std::vector<TextEdit>> SourceSuggestions::text_edits() const {
  std::map<std::string, std::vector<TextEdit>> out;
  for (const auto& [path, f] : files_) {
    std::vector<TextEdit>& edits = out[path];
    const int last = static_cast<int>(f.lines.size());
    for (int line = 1; line <= last + 1; ++line) {
      std::string inserted;
      if (auto it = f.insert_after.find(line - 1); it != f.insert_after.end())
        for (const auto& text : it->second) inserted += text + "\n";
      if (auto it = f.insert_before.find(line); it != f.insert_before.end())
        for (const auto& text : it->second) inserted += text + "\n";
      if (!inserted.empty()) {
        ir::SourceLoc at{path, line, 1, line, 1};
        if (line > last && last > 0) {  // after the end of the file: append to its last line
          int end = static_cast<int>(f.lines.back().size()) + 1;
          at = {path, last, end, last, end};
          inserted = "\n" + inserted.substr(0, inserted.size() - 1);
        }
        edits.push_back({at, inserted});
      }
      std::vector<Replace> here;
      for (const auto& r : f.replaces)
        if (r.line == line) here.push_back(r);
      std::sort(here.begin(), here.end(), [](const Replace& a, const Replace& b) { return a.column < b.column; });
      for (const auto& r : here) edits.push_back({{path, r.line, r.column, r.line, r.end_column}, r.text});
    }
  }
  return out;
}

}  // namespace qlint::rewriter
