// The Python edits that match the graph rewrites, shown as a unified diff against the user's
// source file (found through the debug info): e.g. S1 rewritten to the S6 form, with the new
// `self.mask_quant = QuantStub()` in __init__. Only scripted models carry the exact ranges
// this needs; for others the suggestion says why there is none.
#pragma once

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

// Names for the stubs that edits create, as the rewriter gives them: the rule's hint (plus
// `_quant` for a new stub on an operand), numbered past the owner module's submodules and the
// names already handed out. For `qlint check`, which proposes edits without applying them.
class StubNames {
 public:
  explicit StubNames(const ir::Model& model) : model_(model) {}
  std::string for_edit(const Edit& edit);  // "" when the edit creates no stub

 private:
  const ir::Model& model_;
  std::set<std::string> taken_;  // "owner.name"
};

// Python source files, read once and shared by several suggestions (SARIF and JSON output
// build one per fix of a model).
class SourceFiles {
 public:
  // The file's lines, or null when it is not on disk.
  const std::vector<std::string>* lines(const std::string& path);

 private:
  std::map<std::string, std::optional<std::vector<std::string>>> files_;
};

class SourceSuggestions {
 public:
  // Reads source files through `shared` when given, else through a cache of its own.
  explicit SourceSuggestions(SourceFiles* shared = nullptr) : sources_(shared ? shared : &own_sources_) {}
  SourceSuggestions(const SourceSuggestions&) = delete;
  SourceSuggestions& operator=(const SourceSuggestions&) = delete;

  // For an applied edit. `stub_name` is the attribute the rewriter gave a new stub, if any.
  void add(const ir::Model& model, const Edit& edit, const std::string& stub_name);

  // The unified diffs of all touched files, concatenated ("" when there is nothing to show),
  // with paths shown through `display`.
  std::string diff(const std::function<std::string(const std::string&)>& display) const;
  // The same suggestion as text edits per file, in source order, never overlapping.
  std::map<std::string, std::vector<TextEdit>> text_edits() const;
  // Why (part of) a rewrite has no Python suggestion; empty when the suggestion is complete.
  const std::vector<std::string>& notes() const { return notes_; }

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
  void replace(const std::string& path, const ir::SourceLoc& loc, const std::string& text);
  void insert(std::map<int, std::vector<std::string>>& where, int line, const std::string& text);
  std::string float_name_for(const ir::Model& model, const ir::Node& stub_call);
  void add_stub_to_init(const std::string& near_file, const std::string& template_stub, const std::string& stub_name,
                        const std::string& owner_path);
  bool reroot_root_name(const ir::Model& model, const Edit& edit);

  SourceFiles own_sources_;
  SourceFiles* sources_;
  std::map<std::string, FileEdits> files_;
  std::set<std::string> missing_;  // files already noted as not on disk
  std::vector<std::string> notes_;
};

}  // namespace qlint::rewriter
