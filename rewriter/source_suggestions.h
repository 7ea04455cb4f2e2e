// The Python edits that match the graph rewrites, shown as a unified diff against the user's
// source file (found through the debug info): e.g. S1 rewritten to the S6 form, with the new
// `self.mask_quant = QuantStub()` in __init__. Only scripted models carry the exact ranges
// this needs; for others the suggestion says why there is none.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "analysis/facts.h"
#include "rules/diagnostic.h"

namespace qlint::rewriter {

class SourceSuggestions {
 public:
  // For an applied edit. `stub_name` is the attribute the rewriter gave a new stub, if any.
  void add(const analysis::Facts& facts, const Edit& edit, const std::string& stub_name);

  // The unified diffs of all touched files, concatenated ("" when there is nothing to show),
  // with paths shown through `display`.
  std::string diff(const std::function<std::string(const std::string&)>& display) const;
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
  std::string float_name_for(const analysis::Facts& facts, const ir::Node& stub_call);
  void add_stub_to_init(const analysis::Facts& facts, const std::string& near_file, const std::string& template_stub,
                        const std::string& stub_name, const std::string& owner_path);
  bool reroot_root_name(const analysis::Facts& facts, const Edit& edit);

  std::map<std::string, FileEdits> files_;
  std::map<std::string, bool> missing_;
  std::vector<std::string> notes_;
};

}  // namespace qlint::rewriter
