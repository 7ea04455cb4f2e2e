// The Python edits that match the graph rewrites, shown as a unified diff against the user's
// source file (found through the debug info): e.g. S1 rewritten to the S6 form, with the new
// `self.mask_quant = QuantStub()` in __init__. Each fix kind renders its own edits
// (rewriter/edits/) with the primitives here. Only scripted models carry the exact ranges this
// needs; for others the suggestion says why there is none.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "rules/diagnostic.h"

namespace qlint::rewriter {

// One change to a Python file, as SARIF's `replacements` express it: the text in `region`
// (1-based, end column exclusive, on the original file) becomes `text`. An insertion has an
// empty region.
struct TextEdit {
  ir::SourceLoc region;
  std::string text;
};

// Python source files, read once and shared by several suggestions (SARIF and JSON output
// build one per fix of a model).
class SourceFiles {
 public:
  // The file's lines, or null when it is not on disk or ir::read_source_file does not allow it
  // for `model_file` (a source file beside the model is allowed, one elsewhere may not be).
  const std::vector<std::string>* lines(const std::string& path, const std::string& model_file = "");

 private:
  std::map<std::string, std::optional<std::vector<std::string>>> files_;
};

// "file:line" for notes, or "a node without source location".
std::string note_place(const ir::SourceLoc& loc);

class SourceSuggestions {
 public:
  // Reads source files through `shared` when given, else through a cache of its own.
  explicit SourceSuggestions(SourceFiles* shared = nullptr) : sources_(shared ? shared : &own_sources_) {}
  SourceSuggestions(const SourceSuggestions&) = delete;
  SourceSuggestions& operator=(const SourceSuggestions&) = delete;

  // Adds the Python change of an edit, as its kind renders it.
  void add(const ir::Model& model, const Edit& edit);

  // The unified diffs of all touched files, concatenated ("" when there is nothing to show),
  // with paths shown through `display`.
  std::string diff(const std::function<std::string(const std::string&)>& display) const;
  // The same suggestion as text edits per file, in source order, never overlapping.
  std::map<std::string, std::vector<TextEdit>> text_edits() const;
  // Why (part of) a rewrite has no Python suggestion; empty when the suggestion is complete.
  const std::vector<std::string>& notes() const { return notes_; }

  // ---- Primitives for the fix kinds ----

  // Replaces a single-line range of `path` (a second, different replacement overlapping it is
  // dropped with a note).
  void replace(const std::string& path, const ir::SourceLoc& loc, const std::string& text);
  // Inserts a line before line `line` of `path` (once).
  void insert_line_before(const std::string& path, int line, const std::string& text);
  // The module whose `self` the node's Python line means; none (with a note) when the line is
  // not in a method of one of the model's modules, where no stub can be added.
  std::optional<std::string> self_module(const ir::Model& model, const ir::Node& node);
  // The signature (`def` to its closing parenthesis) of the Python function that line `line` of
  // `path` is in; empty when unknown.
  std::string enclosing_def(const std::string& path, int line);
  // The line of that `def`; 0 when unknown.
  int enclosing_def_line(const std::string& path, int line);
  // A function one of whose calls the archive inlined to give it a stub of its own (a method
  // called from several places): Python keeps one body for every call, so no Python edit inside
  // it is one the archive made. By a location in the function; false when unknown.
  void mark_inlined_for_one_call(const ir::SourceLoc& inside);
  bool inlined_for_one_call(const ir::SourceLoc& inside);
  // The lines of a source file as on disk (null when it is not there): for text the model's
  // debug info does not hold, such as a callee's `def` line.
  const std::vector<std::string>* lines(const std::string& path) { return sources_->lines(path, model_file_); }
  // Says why (part of) the suggestion is missing.
  // Each note once (the copies of one line, fixed together, would say it once per copy).
  void note(std::string text) {
    if (std::find(notes_.begin(), notes_.end(), text) == notes_.end()) notes_.push_back(std::move(text));
  }
  // The Python names of a stub call's output and of its float input. For `x = self.quant(x)`
  // the name is rebound to the quantized value, so the float name is new: {"x", "x_float"}, with
  // `alias` (`x_float = x`) the line to insert before the stub call's `alias_line` once the whole
  // suggestion is known to be made. Nullopt when the call is not a plain `name = self.stub(name)`.
  struct StubNames {
    std::string quantized, floating;
    std::string alias;
    int alias_line = 0;
  };
  std::optional<StubNames> stub_names(const ir::Model& model, const ir::Node& stub_call);
  // Adds `self.NAME = QuantStub()` next to the template stub's line in __init__, when the new
  // stub lives on the same module as the template; else a note saying where to add it (the
  // class's __init__ when several instances share it: each of them gets the stub).
  void add_stub_to_init(const ir::Model& model, const std::string& near_file, const std::string& template_stub,
                        const std::string& stub_name, const std::string& owner_path);

 private:
  struct Replace {
    int line, column, end_column;  // 1-based, end exclusive
    std::string text;
  };
  struct FileEdits {
    std::vector<std::string> lines;
    std::vector<Replace> replaces;
    std::map<int, std::vector<std::string>> insert_before;  // line -> new lines
    std::map<int, std::vector<std::string>> insert_after;
  };

  FileEdits* file(const std::string& path);
  std::string model_file_;  // the model of the edit being added: its directory's files may be read
  void insert(std::map<int, std::vector<std::string>>& where, int line, const std::string& text);

  SourceFiles own_sources_;
  SourceFiles* sources_;
  std::map<std::string, FileEdits> files_;
  std::set<std::string> missing_;                               // files already noted as not on disk
  std::set<std::pair<std::string, int>> inlined_for_one_call_;  // file, `def` line
  std::vector<std::string> notes_;
};

}  // namespace qlint::rewriter
