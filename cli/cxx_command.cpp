#include "cli/cxx_command.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "analysis/facts.h"
#include "cli/config.h"
#include "cli/cxx_backend.h"
#include "cli/torch_backend.h"
#include "ir/display.h"
#include "ir/import_error.h"
#include "rewriter/file_output.h"
#include "rewriter/source_suggestions.h"
#include "rules/registry.h"

namespace qlint::cli {

namespace {

// Whether a TorchScript archive's outputs carry quantization, as qlint's TorchScript analysis
// sees it; nullopt when the archive cannot be read. A relative path is tried from the working
// directory and from each checked file's directory.
class ArchiveOracle {
 public:
  ArchiveOracle(const std::vector<std::string>& files, analysis::StubClasses stubs) : stubs_(std::move(stubs)) {
    for (const auto& f : files) dirs_.push_back(std::filesystem::path(f).parent_path());
  }

  std::optional<bool> operator()(const std::string& archive) {
    auto it = cache_.find(archive);
    if (it != cache_.end()) return it->second;
    return cache_[archive] = evaluate(archive);
  }

 private:
  std::optional<bool> evaluate(const std::string& archive) {
    std::error_code ec;
    std::filesystem::path path = archive;
    if (!std::filesystem::exists(path, ec))
      for (const auto& dir : dirs_)
        if (std::filesystem::exists(dir / archive, ec)) path = dir / archive;
    if (!std::filesystem::exists(path, ec)) return std::nullopt;
    try {
      ir::Model model = torch_backend().import_torchscript(path.string());
      auto facts = analysis::Facts::compute(model, stubs_);
      const ir::Function* forward = model.find_function("forward");
      if (forward == nullptr) return std::nullopt;
      for (const ir::Value* out : forward->body.returns)
        if (facts.quantized(out)) return true;
      return false;
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }

  analysis::StubClasses stubs_;
  std::vector<std::filesystem::path> dirs_;
  std::map<std::string, std::optional<bool>> cache_;
};

using FileEdits = std::map<std::string, std::vector<rewriter::TextEdit>>;

// The C++ edits of the fixes --fix applies (safe ones; unsafe ones too with --unsafe-fixes), by
// file; notes say which findings have none.
FileEdits fixes_of(const std::vector<ModelReport>& reports, bool unsafe, std::vector<std::string>& notes) {
  FileEdits out;
  rewriter::SourceFiles files;
  for (const auto& r : reports) {
    rewriter::SourceSuggestions suggestions(&files);
    for (const auto& d : r.diagnostics)
      if (const Fix* fix = first_applicable_fix(d, unsafe))
        for (const auto& edit : fix->edits) suggestions.add(*r.model, edit);
    for (auto& [file, edits] : suggestions.text_edits()) out[file].insert(out[file].end(), edits.begin(), edits.end());
    notes.insert(notes.end(), suggestions.notes().begin(), suggestions.notes().end());
  }
  return out;
}

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Byte offset of a 1-based line and column in `text`.
size_t offset_of(const std::string& text, int line, int column) {
  size_t offset = 0;
  for (int l = 1; l < line && offset != std::string::npos; ++l) {
    offset = text.find('\n', offset);
    if (offset != std::string::npos) ++offset;
  }
  return offset == std::string::npos ? text.size() : std::min(text.size(), offset + static_cast<size_t>(column - 1));
}

struct Replacement {
  size_t offset, length;
  std::string text;
};

std::vector<Replacement> replacements(const std::string& text, const std::vector<rewriter::TextEdit>& edits) {
  std::vector<Replacement> out;
  for (const auto& e : edits) {
    size_t begin = offset_of(text, e.region.line, e.region.column);
    size_t end = offset_of(text, e.region.end_line, e.region.end_column);
    out.push_back({begin, end - begin, e.text});
  }
  return out;
}

std::string yaml_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

// The replacements in clang-tidy's export format, which clang-apply-replacements reads.
std::string export_yaml(const std::vector<ModelReport>& reports, const FileEdits& edits) {
  std::ostringstream out;
  std::string main = reports.empty() ? "" : std::filesystem::absolute(reports.front().model->file).string();
  out << "---\nMainSourceFile: " << yaml_quoted(main) << "\nDiagnostics:\n";
  for (const auto& [file, file_edits] : edits) {
    auto text = read_file(file);
    if (!text) continue;
    std::string path = std::filesystem::absolute(file).string();
    for (const auto& r : replacements(*text, file_edits)) {
      out << "  - DiagnosticName: qlint\n    DiagnosticMessage:\n      Message: " << yaml_quoted("qlint fix")
          << "\n      FilePath: " << yaml_quoted(path) << "\n      FileOffset: " << r.offset
          << "\n      Replacements:\n        - FilePath: " << yaml_quoted(path) << "\n          Offset: " << r.offset
          << "\n          Length: " << r.length << "\n          ReplacementText: " << yaml_quoted(r.text)
          << "\n    Level: Warning\n";
    }
  }
  out << "...\n";
  return out.str();
}

// Applies the edits to the files in place, as --fix writes models (rewriter/file_output.h: a
// failed write leaves the file as it was); returns how many it made. A file that cannot be
// written is an error line, and the others are still fixed.
size_t apply_edits(const FileEdits& edits, std::vector<InputError>& errors) {
  size_t applied = 0;
  for (const auto& [file, file_edits] : edits) {
    auto text = read_file(file);
    if (!text) continue;
    auto rs = replacements(*text, file_edits);
    std::sort(rs.begin(), rs.end(), [](const Replacement& a, const Replacement& b) { return a.offset > b.offset; });
    for (const auto& r : rs) text->replace(r.offset, r.length, r.text);
    try {
      rewriter::write_text_file(file, *text);
      applied += rs.size();
    } catch (const rewriter::FixError& e) {
      errors.push_back({file, e.what()});
      std::cerr << "qlint: error: " << e.what() << "\n";
    }
  }
  return applied;
}

}  // namespace

int run_cxx(const CxxOptions& options) {
  if (options.check.files.empty()) return kExitClean;
  // The configuration of the first file applies to the run (quant functions, stubs); each
  // file's own per-file-ignores and selection apply to its findings.
  CheckOptions first = options.check;
  try {
    first = options_for(options.check.files.front(), options.check);
  } catch (const ConfigError& e) {
    std::cerr << "qlint: error: " << e.what() << "\n";
    return kExitError;
  }
  cxx::Options front_end;
  front_end.quant_functions = options.quant_functions;
  std::optional<Config> config = options.check.isolated ? std::nullopt
                                 : options.check.config_file.empty()
                                     ? find_config(options.check.files.front())
                                     : std::optional<Config>(load_config(options.check.config_file));
  if (config)
    front_end.quant_functions.insert(front_end.quant_functions.end(), config->quant_functions.begin(),
                                     config->quant_functions.end());
  front_end.archives = options.archives;
  auto oracle = std::make_shared<ArchiveOracle>(options.check.files, first.stubs);
  front_end.archive_quantized = [oracle](const std::string& archive) { return (*oracle)(archive); };

  cxx::ImportRequest request;
  request.build_dir = options.build_dir;
  request.files = options.check.files;
  request.extra_args = options.extra_args;
  request.fixed_args = options.fixed_args;
  request.use_fixed_args = options.use_fixed_args;

  std::vector<cxx::ImportedFile> imported;
  try {
    imported = cxx_backend().import_cxx(request, front_end);
  } catch (const ir::ImportError& e) {
    std::cerr << "qlint: error: " << e.what() << "\n";
    return kExitError;
  } catch (const BackendError& e) {
    std::cerr << "qlint: error: " << e.what() << "\n";
    return kExitError;
  }
  std::vector<ModelReport> reports;
  std::vector<InputError> errors;
  for (auto& file : imported) {
    if (!file.error.empty()) {
      InputError error{file.file, ir::display_path(file.file) + ": " + file.error};
      if (options.check.format != "json" && options.check.format != "github")
        std::cerr << "qlint: error: " << error.message << "\n";
      errors.push_back(error);
      continue;
    }
    CheckOptions own;
    try {
      own = options_for(file.file, options.check);
    } catch (const ConfigError& e) {
      errors.push_back({file.file, e.what()});
      if (options.check.format != "json" && options.check.format != "github")
        std::cerr << "qlint: error: " << e.what() << "\n";
      continue;
    }
    auto model = std::make_shared<ir::Model>(std::move(file.model));
    auto facts = analysis::Facts::compute(*model, own.stubs);
    reports.push_back({file.file, model, filter_diagnostics(*model, rules::run_all(facts), own.selection), nullptr});
  }
  if (options.fix || !options.export_fixes.empty()) {
    std::vector<std::string> notes;
    FileEdits edits = fixes_of(reports, options.unsafe_fixes, notes);
    for (const auto& note : notes) std::cerr << "qlint: note: " << note << "\n";
    if (!options.export_fixes.empty()) {
      std::ofstream out(options.export_fixes);
      out << export_yaml(reports, edits);
      if (!out) {
        std::cerr << "qlint: error: cannot write " << options.export_fixes << "\n";
        return kExitError;
      }
    }
    if (options.fix) {
      size_t applied = apply_edits(edits, errors);
      std::cerr << "qlint: applied " << applied << (applied == 1 ? " replacement" : " replacements") << "\n";
    }
  }
  print_reports(reports, errors, options.check, "");
  if (!errors.empty()) return kExitError;
  if (options.check.exit_zero) return kExitClean;
  for (const auto& r : reports)
    if (!r.diagnostics.empty()) return kExitFindings;
  return kExitClean;
}

}  // namespace qlint::cli
