#include "rewriter/source_suggestions.h"

#include <algorithm>
#include <optional>
#include <regex>
#include <sstream>

#include "analysis/facts.h"
#include "ir/display.h"
#include "ir/input_file.h"
#include "ir/source_text.h"
#include "rewriter/edits/edit_kind.h"
#include "rewriter/unified_diff.h"

namespace qlint::rewriter {

namespace {

std::string parent_path(const std::string& path) {
  auto dot = path.rfind('.');
  return dot == std::string::npos ? "" : path.substr(0, dot);
}

std::string last_component(const std::string& path) { return path.substr(path.rfind('.') + 1); }

}  // namespace

std::string note_place(const ir::SourceLoc& loc) {
  // As the findings name files: relative to the working directory when under it.
  return loc.known() ? ir::display_path(loc.file) + ":" + std::to_string(loc.line) : "a node without source location";
}

const std::vector<std::string>* SourceFiles::lines(const std::string& path, const std::string& model_file) {
  auto [it, added] = files_.try_emplace(path + '\0' + model_file);
  if (added) {
    // Only what ir::read_source_file allows: an archive's debug info may name any path.
    if (auto text = ir::read_source_file(path, model_file)) {
      it->second.emplace();
      std::istringstream in(*text);
      for (std::string line; std::getline(in, line);) it->second->push_back(line);
    }
  }
  return it->second ? &*it->second : nullptr;
}

SourceSuggestions::FileEdits* SourceSuggestions::file(const std::string& path) {
  auto it = files_.find(path);
  if (it != files_.end()) return &it->second;
  const std::vector<std::string>* lines = sources_->lines(path, model_file_);
  if (lines == nullptr) {
    if (missing_.insert(path).second)
      notes_.push_back(path +
                       " cannot be read (it is not on disk, or not under the directories qlint reads sources from; see "
                       "--source-root), so there is no source edit for it");
    return nullptr;
  }
  FileEdits edits;
  edits.lines = *lines;
  return &files_.emplace(path, std::move(edits)).first->second;
}

void SourceSuggestions::replace(const std::string& path, const ir::SourceLoc& loc, const std::string& text) {
  FileEdits* f = file(path);
  if (f == nullptr) return;
  // A range the file's line does not hold (the file changed since the export, or a place taken
  // from another file): no suggestion there, rather than an edit of the wrong text.
  if (loc.line < 1 || static_cast<size_t>(loc.line) > f->lines.size() || loc.column < 1 ||
      loc.end_column < loc.column ||
      static_cast<size_t>(loc.end_column - 1) > f->lines[static_cast<size_t>(loc.line) - 1].size()) {
    notes_.push_back("no Python suggestion at " + note_place(loc) + ": the source line does not hold that range");
    return;
  }
  for (const auto& r : f->replaces) {
    // The same edit twice (two findings fixed by one rewrite) is one edit; insertions are empty.
    if (r.line == loc.line && r.column == loc.column && r.end_column == loc.end_column && r.text == text) return;
    if (r.line != loc.line || r.end_column <= loc.column || loc.end_column <= r.column) continue;
    notes_.push_back("two rewrites touch " + note_place(loc) + "; the suggestion shows the first");
    return;
  }
  f->replaces.push_back({loc.line, loc.column, loc.end_column, text});
}

void SourceSuggestions::insert(std::map<int, std::vector<std::string>>& where_to, int line, const std::string& text) {
  auto& lines = where_to[line];
  if (std::find(lines.begin(), lines.end(), text) == lines.end()) lines.push_back(text);
}

std::optional<SourceSuggestions::StubNames> SourceSuggestions::stub_names(const ir::Model& model,
                                                                          const ir::Node& stub_call) {
  static const std::regex assignment(R"(^(\s*)([A-Za-z_]\w*)\s*=\s*self\.[\w.]+\(\s*([A-Za-z_]\w*)\s*\)\s*(#.*)?$)");
  const ir::SourceLoc& loc = stub_call.loc;
  const std::string* line = loc.known() ? model.source_line(loc.file, loc.line) : nullptr;
  std::smatch m;
  // Bounded: libstdc++'s regex recurses per matched character.
  if (line == nullptr || line->size() > 4096 || !std::regex_match(*line, m, assignment)) return std::nullopt;
  std::string out = m[2], in = m[3];
  if (out != in) return StubNames{out, in, "", 0};
  return StubNames{out, in + "_float", std::string(m[1]) + in + "_float = " + in, loc.line};
}

namespace {

// "the module `head`", or "class `GateHead` (modules `gate_pos`, `gate_neg`)" when instances
// share the class whose __init__ gets the stub.
std::string init_owner(const ir::Model& model, const std::string& owner_path) {
  const ir::ModuleInfo* owner = model.find_module(owner_path);
  std::vector<std::string> instances;
  for (const ir::ModuleInfo& m : model.modules)
    if (owner != nullptr && m.class_name == owner->class_name) instances.push_back("`" + m.path + "`");
  if (instances.size() < 2) return "the module `" + owner_path + "`";
  std::string cls = analysis::normalize_class_name(owner->class_name);
  std::string list;
  for (const std::string& instance : instances) list += (list.empty() ? "" : ", ") + instance;
  return "class `" + cls.substr(cls.rfind('.') + 1) + "` (modules " + list + ")";
}

size_t indentation(const std::string& line) {
  const size_t first = line.find_first_not_of(" \t");
  return first == std::string::npos ? line.size() : first;
}

}  // namespace

void SourceSuggestions::add_stub_to_init(const ir::Model& model, const std::string& near_file,
                                         const std::string& template_stub, const std::string& stub_name,
                                         const std::string& owner_path) {
  if (parent_path(template_stub) != owner_path) {
    notes_.push_back("add `self." + stub_name + " = QuantStub()` to the __init__ of " + init_owner(model, owner_path));
    return;
  }
  FileEdits* f = file(near_file);
  if (f == nullptr) return;
  // The statement alone on its line, or, in an `__init__`, first or later among others separated by `;`
  // (`super().__init__(); self.quant = tq.QuantStub(); self.dequant = tq.DeQuantStub()`).
  const std::string stub = "self\\." + last_component(template_stub) + "\\s*=\\s*([\\w.]*QuantStub\\([^)]*\\))";
  const std::regex alone("^\\s*" + stub + "\\s*(#.*)?$"), among_others("^(?:[^#]*;)?\\s*" + stub + "\\s*(;|#|$)");
  static const std::regex init(R"(^\s*def\s+__init__\s*\()"),
      opens_a_block(R"(^\s*(def|class|if|elif|else|for|while|with|try|except|finally)\b)");
  long init_indent = -1;  // inside an __init__'s body: the def's indentation; else -1
  for (size_t i = 0; i < f->lines.size(); ++i) {
    std::smatch m;
    const std::string& line = f->lines[i];
    if (line.size() > 4096) continue;
    const size_t indent = indentation(line);
    const auto depth = static_cast<long>(indent);
    if (init_indent >= 0 && indent < line.size() && depth <= init_indent) init_indent = -1;
    if (std::regex_search(line, init)) init_indent = depth;
    const bool found = std::regex_search(line, m, alone) ||
                       (init_indent >= 0 && depth > init_indent && !std::regex_search(line, opens_a_block) &&
                        std::regex_search(line, m, among_others));
    if (!found) continue;
    insert(f->insert_after, static_cast<int>(i) + 1,
           line.substr(0, indent) + "self." + stub_name + " = " + std::string(m[1]));
    return;
  }
  notes_.push_back("add `self." + stub_name + " = QuantStub()` to __init__ (no `self." + last_component(template_stub) +
                   " = QuantStub()` line found in " + near_file + ")");
}

void SourceSuggestions::add(const ir::Model& model, const Edit& edit) {
  model_file_ = model.file;
  if (model.language == ir::Language::Cxx) return edit_kind(edit.kind).render_cxx(model, edit, *this);
  edit_kind(edit.kind).render_python(model, edit, *this);
}

// The signature of the Python function line `line` is in: from the nearest `def` above it
// indented less to the line that closes its parentheses (black splits long signatures), joined.
// Empty when none is found within reach.
int SourceSuggestions::enclosing_def_line(const std::string& path, int line) {
  static const std::regex def(R"(^\s*(async\s+)?def\s)");
  const std::vector<std::string>* text = lines(path);
  if (text == nullptr || line < 1 || static_cast<size_t>(line) > text->size()) return 0;
  size_t inside = indentation((*text)[static_cast<size_t>(line) - 1]);
  for (int at = line - 1; at >= 1 && at > line - 2000; --at) {
    const std::string& candidate = (*text)[static_cast<size_t>(at) - 1];
    const size_t indent = indentation(candidate);
    // Blank, deeper than the line, or the `)` or `]` that ends a split signature or call.
    if (indent >= candidate.size() || indent >= inside || candidate[indent] == ')' || candidate[indent] == ']')
      continue;
    if (candidate.size() <= 4096 && std::regex_search(candidate, def)) return at;
    inside = indent;  // an `if`, `for` or class line on the way: the def is indented less still
  }
  return 0;
}

void SourceSuggestions::mark_inlined_for_one_call(const ir::SourceLoc& inside) {
  if (int def = inside.known() ? enclosing_def_line(inside.file, inside.line) : 0; def > 0)
    inlined_for_one_call_.insert({inside.file, def});
}

bool SourceSuggestions::inlined_for_one_call(const ir::SourceLoc& inside) {
  const int def = inside.known() ? enclosing_def_line(inside.file, inside.line) : 0;
  return def > 0 && inlined_for_one_call_.count({inside.file, def}) > 0;
}

std::string SourceSuggestions::enclosing_def(const std::string& path, int line) {
  const int at = enclosing_def_line(path, line);
  if (at == 0) return "";
  const std::vector<std::string>& text = *lines(path);
  std::string signature;
  for (int end = at; end < line && signature.size() <= 4096; ++end) {
    signature += text[static_cast<size_t>(end) - 1];
    if (signature.find(')') != std::string::npos) break;
  }
  return signature;
}

std::optional<std::string> SourceSuggestions::self_module(const ir::Model& model, const ir::Node& node) {
  auto module = ir::python_self_module(model, node);
  if (!module) {
    note("no Python suggestion for the rewrite at " + note_place(node.loc) +
         ": it is not in a method of one of the model's modules");
    return module;
  }
  // A free function an earlier round inlined into the method: its lines have no `self`.
  static const std::regex takes_self(R"(def\s+\w+\s*\(\s*self\b)");
  const std::string def = node.loc.known() ? enclosing_def(node.loc.file, node.loc.line) : "";
  if (!def.empty() && !std::regex_search(def, takes_self)) {
    note("no Python suggestion for the rewrite at " + note_place(node.loc) +
         ": that line is in a function without `self`, which the rewritten archive inlined into the method; in "
         "Python, move that code into the method, or return the value from the function and quantize it there");
    return std::nullopt;
  }
  return module;
}

void SourceSuggestions::insert_line_before(const std::string& path, int line, const std::string& text) {
  if (FileEdits* f = file(path)) insert(f->insert_before, line, text);
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
