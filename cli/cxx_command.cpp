#include "cli/cxx_command.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "analysis/facts.h"
#include "cli/config.h"
#include "cli/cxx_backend.h"
#include "cli/cxx_notes.h"
#include "cli/formats.h"
#include "cli/torch_backend.h"
#include "ir/display.h"
#include "ir/import_error.h"
#include "ir/input_file.h"
#include "rewriter/file_output.h"
#include "rewriter/source_suggestions.h"
#include "rules/registry.h"

namespace qlint::cli {

namespace {

// Whether a TorchScript archive's outputs carry quantization, as qlint's TorchScript analysis
// sees it; nullopt when the archive cannot be read. A relative path is tried from the working
// directory qlint was started in and from each checked file's directory, both taken when the
// oracle is made: Clang's tool runs each file in its compile command's directory (public round 18
// C++: `--archive 'argv[1]=models/m.pt'` was looked up from the database entry's directory).
class ArchiveOracle {
 public:
  ArchiveOracle(const std::vector<std::string>& files, analysis::StubClasses stubs) : stubs_(std::move(stubs)) {
    std::error_code ec;
    const std::filesystem::path started_in = std::filesystem::current_path(ec);
    if (!ec) dirs_.push_back(started_in);
    for (const auto& f : files) dirs_.push_back(started_in / std::filesystem::path(f).parent_path());
  }

  cxx::ArchiveVerdict operator()(const std::string& archive) {
    auto it = cache_.find(archive);
    if (it != cache_.end()) return it->second;
    return cache_[archive] = evaluate(archive);
  }

 private:
  static cxx::ArchiveVerdict unread(const std::string& why) {
    cxx::ArchiveVerdict verdict;
    verdict.unread = why;
    return verdict;
  }

  cxx::ArchiveVerdict evaluate(const std::string& archive) {
    std::error_code ec;
    std::filesystem::path path = archive;
    if (path.is_relative())
      for (const auto& dir : dirs_)
        if (std::filesystem::exists(dir / archive, ec)) {
          path = dir / archive;
          break;
        }
    // Else as the process sees it now (the compile command's directory, where Clang runs the file).
    if (!std::filesystem::exists(path, ec))
      return unread(
          "is not there (looked from the working directory and beside each checked file; a path written "
          "in the code, such as its author's, is pointed elsewhere with `--archive '" +
          ir::printable(archive, 200) + "=PATH'`)");
    try {
      ir::Model model = torch_backend().import_torchscript(path.string());
      auto facts = analysis::Facts::compute(model, stubs_);
      const ir::Function* forward = model.find_function("forward");
      if (forward == nullptr) return unread("has no forward method");
      cxx::ArchiveVerdict verdict;
      verdict.quantized = false;
      for (const ir::Value* out : forward->body.returns)
        if (facts.quantized(out)) verdict.quantized = true;
      auto carries = [&](const ir::Value* element) {
        const ir::DType dtype = facts.dtype(element);
        return facts.quantized(element) && !ir::is_integral(dtype) && dtype != ir::DType::Bool;
      };
      verdict.returns_tensor = forward->body.returns.size() == 1 && forward->body.returns[0]->type.is_tensor();
      const ir::Node* made = forward->body.returns.size() == 1 ? forward->body.returns[0]->producer : nullptr;
      // A list only as built: one that forward appends to or writes into holds other elements.
      const bool as_built =
          made != nullptr && (made->kind == "prim::TupleConstruct" ||
                              (made->kind == "prim::ListConstruct" && made->outputs[0]->users.size() == 1));
      if (as_built)
        for (const ir::Value* element : made->inputs) verdict.elements_quantized.push_back(carries(element));
      if (made != nullptr && made->kind == "prim::DictConstruct") verdict.keys_quantized = dict_keys(*made, carries);
      return verdict;
    } catch (const std::exception& e) {
      std::string why = e.what();
      return unread("cannot be read: " + why.substr(0, why.find('\n')));
    }
  }

  // Each constant key of a returned dict, and whether its value carries quantization; empty when
  // a key is not a constant string (then no key can be told apart).
  template <typename Carries>
  static std::map<std::string, bool> dict_keys(const ir::Node& dict, const Carries& carries) {
    std::map<std::string, bool> keys;
    for (size_t i = 0; i + 1 < dict.inputs.size(); i += 2) {
      const ir::Node* key = dict.inputs[i]->producer;
      const ir::Attr* name = key != nullptr && key->kind == "prim::Constant" ? key->attr("value") : nullptr;
      if (name == nullptr || name->kind != ir::Attr::Kind::Str) return {};
      keys[name->s] = carries(dict.inputs[i + 1]);
    }
    return keys;
  }

  analysis::StubClasses stubs_;
  std::vector<std::filesystem::path> dirs_;
  std::map<std::string, cxx::ArchiveVerdict> cache_;
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

// --fix with no edit to make: said as such, not as problems "remaining after fixing" (public C++
// round 23: every finding was on a model's output, which has no C++ fix).
std::string nothing_fixed(const std::vector<ModelReport>& reports, bool unsafe) {
  size_t held = 0;
  for (const auto& r : reports)
    for (const auto& d : r.diagnostics)
      if (!unsafe && first_applicable_fix(d, false) == nullptr && first_applicable_fix(d, true) != nullptr) ++held;
  if (held > 0)
    return "Nothing was fixed: " + std::to_string(held) + (held == 1 ? " fix needs" : " fixes need") +
           " --unsafe-fixes.\n";
  size_t found = 0;
  for (const auto& r : reports) found += r.diagnostics.size();
  return found == 0 ? "" : "Nothing was fixed: no finding has a C++ fix qlint can apply (the notes say why).\n";
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

bool same_edit(const rewriter::TextEdit& a, const rewriter::TextEdit& b) {
  return a.text == b.text && a.region.file == b.region.file && a.region.line == b.region.line &&
         a.region.column == b.region.column && a.region.end_line == b.region.end_line &&
         a.region.end_column == b.region.end_column;
}

// Each finding with the edits its own fix makes when rendered alone, for --export-fixes: a
// merged edit belongs to the first finding that makes it (edits two fixes share were merged).
using OwnEdits = std::vector<std::pair<const Diagnostic*, std::vector<rewriter::TextEdit>>>;
OwnEdits own_edits(const std::vector<ModelReport>& reports, bool unsafe) {
  OwnEdits out;
  rewriter::SourceFiles files;
  for (const auto& r : reports)
    for (const auto& d : r.diagnostics)
      if (const Fix* fix = first_applicable_fix(d, unsafe)) {
        rewriter::SourceSuggestions alone(&files);
        for (const auto& e : fix->edits) alone.add(*r.model, e);
        std::vector<rewriter::TextEdit> edits;
        for (const auto& [file, file_edits] : alone.text_edits())
          edits.insert(edits.end(), file_edits.begin(), file_edits.end());
        out.emplace_back(&d, std::move(edits));
      }
  return out;
}

const Diagnostic* owner_of(const rewriter::TextEdit& edit, const OwnEdits& owners) {
  for (const auto& [finding, edits] : owners)
    for (const auto& e : edits)
      if (same_edit(e, edit)) return finding;
  return nullptr;
}

// The replacements in clang-tidy's export format, which clang-apply-replacements reads: one
// diagnostic per finding, named by its rule and message and placed at the finding, with the
// replacements of its fix.
std::string export_yaml(const std::vector<ModelReport>& reports, const FileEdits& edits, bool unsafe) {
  struct Entry {
    const Diagnostic* finding;
    std::vector<std::pair<std::string, Replacement>> replacements;  // absolute path, replacement
  };
  std::map<std::string, std::optional<std::string>> texts;  // each file read once
  auto text_of = [&](const std::string& file) -> const std::optional<std::string>& {
    auto it = texts.find(file);
    return it != texts.end() ? it->second : texts[file] = read_file(file);
  };
  const OwnEdits owners = own_edits(reports, unsafe);
  std::vector<Entry> entries;
  for (const auto& [file, file_edits] : edits) {
    const auto& text = text_of(file);
    if (!text) continue;
    std::string path = std::filesystem::absolute(file).string();
    for (const auto& edit : file_edits) {
      const Diagnostic* finding = owner_of(edit, owners);
      auto entry = std::find_if(entries.begin(), entries.end(), [&](const Entry& e) { return e.finding == finding; });
      if (entry == entries.end()) entry = entries.insert(entries.end(), Entry{finding, {}});
      entry->replacements.emplace_back(path, replacements(*text, {edit}).front());
    }
  }
  std::ostringstream out;
  std::string main = reports.empty() ? "" : std::filesystem::absolute(reports.front().model->file).string();
  out << "---\nMainSourceFile: " << yaml_quoted(main) << "\nDiagnostics:\n";
  for (const Entry& entry : entries) {
    const Diagnostic* d = entry.finding;
    std::string path = entry.replacements.front().first;
    size_t offset = entry.replacements.front().second.offset;
    if (d != nullptr && d->loc.known()) {
      path = std::filesystem::absolute(d->loc.file).string();
      if (const auto& text = text_of(d->loc.file)) offset = offset_of(*text, d->loc.line, d->loc.column);
    }
    out << "  - DiagnosticName: " << yaml_quoted(d ? d->rule : "qlint")
        << "\n    DiagnosticMessage:\n      Message: " << yaml_quoted(d ? d->message : "qlint fix")
        << "\n      FilePath: " << yaml_quoted(path) << "\n      FileOffset: " << offset << "\n      Replacements:\n";
    for (const auto& [file, r] : entry.replacements)
      out << "        - FilePath: " << yaml_quoted(file) << "\n          Offset: " << r.offset
          << "\n          Length: " << r.length << "\n          ReplacementText: " << yaml_quoted(r.text) << "\n";
    out << "    Level: Warning\n";
  }
  out << "...\n";
  return out.str();
}

// Writes --export-fixes' file: only a regular file or a new path (a FIFO would block the open
// until a reader came, a device would swallow or refuse the text), in full, synced. Returns why
// it could not, or "".
std::string write_export(const std::string& path, const std::string& text) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    const char* kind = S_ISDIR(st.st_mode)                          ? "a directory"
                       : S_ISFIFO(st.st_mode)                       ? "a FIFO"
                       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                                    : "not a regular file";
    return std::string("is ") + kind + "; qlint writes fixes only to a regular file or a new path";
  }
  // O_NONBLOCK: should the path become a FIFO after the check, the open fails instead of waiting.
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd < 0) return std::string("cannot write it: ") + std::strerror(errno);
  int err = ::fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) ? EINVAL : 0;
  for (size_t written = 0; err == 0 && written < text.size();) {
    ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) err = n < 0 ? errno : EIO;
    if (n > 0) written += static_cast<size_t>(n);
  }
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == ENOSPC) return "no space left on device; the fixes were not all written";
  if (err != 0) return std::string("cannot write it: ") + std::strerror(err);
  return "";
}

// The text of each file with its edits applied, and how many replacements that took.
struct FixedText {
  std::string text;
  size_t replacements = 0;
};
std::map<std::string, FixedText> fixed_texts(const FileEdits& edits) {
  std::map<std::string, FixedText> out;
  for (const auto& [file, file_edits] : edits) {
    auto text = read_file(file);
    if (!text) continue;
    auto rs = replacements(*text, file_edits);
    std::sort(rs.begin(), rs.end(), [](const Replacement& a, const Replacement& b) { return a.offset > b.offset; });
    for (const auto& r : rs) text->replace(r.offset, r.length, r.text);
    // A failpoint for the tests: a fix that breaks the file is never written.
    if (const char* failpoint = std::getenv("QLINT_FAILPOINT");
        failpoint && std::string(failpoint) == "corrupt-fixed-source")
      *text += "\n#error qlint failpoint corrupt-fixed-source\n";
    out[file] = {*text, rs.size()};
  }
  return out;
}

// The path the front end parses a file by (its overlay's key).
std::string absolute_path(const std::string& file) {
  std::error_code ec;
  return std::filesystem::absolute(file, ec).lexically_normal().string();
}

// The same file under any name: Clang names a linked file by its target.
std::string canonical_path(const std::string& file) {
  std::error_code ec;
  return std::filesystem::weakly_canonical(std::filesystem::absolute(file, ec), ec).string();
}

void print_error(const CheckOptions& options, const InputError& error) {
  if (!reports_input_errors(options.format)) std::cerr << "qlint: error: " << error.message << "\n";
}

// A function of the project's own header is analysed in every file that includes it: its
// findings are said once, with the first of those files.
void once_per_header(std::vector<ModelReport>& reports) {
  std::set<FindingKey> seen;
  for (ModelReport& r : reports) {
    auto& found = r.diagnostics;
    found.erase(std::remove_if(found.begin(), found.end(),
                               [&](const Diagnostic& d) {
                                 return d.loc.file != r.model->file && !seen.insert(finding_key(d)).second;
                               }),
                found.end());
  }
}

// "[3/12] src/deploy.cpp" on standard error while files are parsed, when it is a terminal; the
// line is cleared at the end.
class ProgressLine {
 public:
  explicit ProgressLine(bool wanted) : enabled_(wanted && ::isatty(STDERR_FILENO)) {}
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  ~ProgressLine() {
    if (shown_) std::fprintf(stderr, "\r\033[K");
  }
  void show(size_t done, size_t total, const std::string& file) {
    if (!enabled_) return;
    std::fprintf(stderr, "\r[%zu/%zu] %s\033[K", done, total, ir::printable(ir::display_path(file), 120).c_str());
    shown_ = true;
  }

 private:
  bool enabled_;
  bool shown_ = false;
};

// Parses the files (or their overlays) and runs the rules, each file with its own
// configuration; a file that does not parse or configure is an error of its own.
class CxxLinter {
 public:
  CxxLinter(const CxxOptions& options, cxx::Options front_end) : options_(options), front_end_(std::move(front_end)) {}

  // Throws ir::ImportError (no compilation database) or BackendError.
  void lint(const std::vector<std::string>& files, const std::map<std::string, std::string>& overlays,
            std::vector<ModelReport>& reports, std::vector<InputError>& errors) const {
    cxx::ImportRequest request;
    request.build_dir = options_.build_dir;
    request.files = files;
    request.extra_args = options_.extra_args;
    request.fixed_args = options_.fixed_args;
    request.use_fixed_args = options_.use_fixed_args;
    request.overlays = overlays;
    request.jobs = options_.jobs != 0 ? options_.jobs : std::max(1u, std::thread::hardware_concurrency());
    ProgressLine progress(options_.check.format != "json" && options_.check.format != "sarif" && files.size() > 1);
    request.progress = [&progress](size_t done, size_t total, const std::string& file) {
      progress.show(done, total, file);
    };
    for (auto& file : cxx_backend().import_cxx(request, front_end_)) {
      archives_named_.insert(file.archives_named.begin(), file.archives_named.end());
      if (!file.error.empty()) {
        errors.push_back({file.file, ir::display_path(file.file) + ": " + file.error +
                                         (file.partial ? "; qlint checked the functions Clang could parse" : "")});
        if (!file.partial) continue;
      }
      CheckOptions own;
      try {
        own = options_for(file.file, options_.check);
      } catch (const ConfigError& e) {
        errors.push_back({file.file, e.what()});
        continue;
      }
      auto model = std::make_shared<ir::Model>(std::move(file.model));
      auto facts = analysis::Facts::compute(*model, own.stubs);
      reports.push_back({file.file, model, filter_diagnostics(*model, rules::run_all(facts), own.selection), nullptr});
    }
    once_per_header(reports);
  }

  // The `--archive` entries no checked file's code names: a misspelt or stale one would
  // otherwise change nothing without a word.
  std::vector<std::string> archives_naming_nothing() const {
    std::vector<std::string> unused;
    for (const std::string& entry : front_end_.archives)
      if (!archives_named_.count(entry)) unused.push_back(entry);
    return unused;
  }

 private:
  const CxxOptions& options_;
  cxx::Options front_end_;
  mutable std::set<std::string> archives_named_;
};

// --fix: each checked file's fixed text is parsed and checked again before it is written, so a
// fix that would not compile is never written; the reports become those of the fixed files.
// Returns the summary printed before the findings that remain.
std::string fix_files(const CxxLinter& linter, const std::map<std::string, FixedText>& fixed,
                      std::vector<ModelReport>& reports, std::vector<InputError>& errors) {
  std::map<std::string, const FixedText*> by_file;
  for (const auto& [file, text] : fixed) by_file[canonical_path(file)] = &text;
  std::map<std::string, std::string> overlays;
  std::vector<std::string> files;
  std::set<std::string> checked_files;
  for (const ModelReport& r : reports)
    if (auto it = by_file.find(canonical_path(r.model_file)); it != by_file.end()) {
      files.push_back(r.model_file);
      overlays[absolute_path(r.model_file)] = it->second->text;
      checked_files.insert(it->first);
    }
  for (const auto& [file, text] : by_file)  // a header, say: edited only when it is checked
    if (!checked_files.count(file))
      std::cerr << "qlint: note: " << ir::display_path(file) << " needs a fix too; name it among the files\n";
  std::vector<ModelReport> after;
  std::vector<InputError> failed;
  linter.lint(files, overlays, after, failed);
  std::set<std::string> broken;  // by the fixes: never written
  for (const InputError& f : failed) {
    errors.push_back({f.file, f.message + " (with qlint's fixes; nothing was written)"});
    broken.insert(canonical_path(f.file));
  }
  std::ostringstream summary;
  for (ModelReport& checked : after) {
    if (broken.count(canonical_path(checked.model_file))) continue;
    auto before = std::find_if(reports.begin(), reports.end(),
                               [&](const ModelReport& r) { return r.model_file == checked.model_file; });
    const FixedText& text = *by_file.at(canonical_path(checked.model_file));
    try {
      rewriter::write_text_file(checked.model_file, text.text);
    } catch (const rewriter::FixError& e) {
      errors.push_back({checked.model_file, e.what()});
      continue;
    }
    size_t was = before->diagnostics.size(), now = checked.diagnostics.size();
    summary << "Fixed " << (was > now ? was - now : 0) << " of " << was << (was == 1 ? " problem" : " problems")
            << " in " << ir::display_path(checked.model_file) << " with " << text.replacements
            << (text.replacements == 1 ? " replacement" : " replacements")
            << "; the fixed file parses and was checked again.\n";
    *before = std::move(checked);
  }
  return summary.str();
}

// With no files named, the files of the compilation database (matching --files), as
// run-clang-tidy checks a whole project. False, with an error printed, when there are none.
bool project_files(CxxOptions& options) {
  if (!options.check.files.empty()) return true;
  if (options.use_fixed_args) {
    std::cerr << "qlint: error: no files to check: name them, or give -p BUILD_DIR to check every file of its "
                 "compile_commands.json\n";
    return false;
  }
  std::vector<std::string> files;
  try {
    files = cxx_backend().database_files(options.build_dir);
  } catch (const std::runtime_error& e) {  // ir::ImportError, BackendError
    std::cerr << "qlint: error: " << e.what() << "\n";
    return false;
  }
  std::regex wanted;
  try {
    wanted = std::regex(options.files_regex.empty() ? std::string(".") : options.files_regex);
  } catch (const std::regex_error& e) {
    std::cerr << "qlint: error: --files " << ir::printable(options.files_regex, 200)
              << " is not a regular expression: " << e.what() << "\n";
    return false;
  }
  for (const auto& file : files)
    if (std::regex_search(file, wanted)) options.check.files.push_back(file);
  if (options.check.files.empty())
    std::cerr << "qlint: error: no file of " << ir::display_path(options.build_dir) << "'s compile_commands.json"
              << (options.files_regex.empty() ? "" : " matches --files " + ir::printable(options.files_regex, 200))
              << "\n";
  return !options.check.files.empty();
}

}  // namespace

int run_cxx(const CxxOptions& requested) {
  CxxOptions options = requested;
  if (!project_files(options)) return kExitError;
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

  CxxLinter linter(options, front_end);
  std::vector<ModelReport> reports;
  std::vector<InputError> errors;
  std::string fix_summary;
  bool nothing_to_apply = false;  // --fix: no finding had an edit
  try {
    linter.lint(options.check.files, {}, reports, errors);
    if (options.fix || !options.export_fixes.empty()) {
      std::vector<std::string> notes;
      FileEdits edits = fixes_of(reports, options.unsafe_fixes, notes);
      // A file that does not compile is not fixed: its fixed text could not be checked.
      for (const InputError& e : errors)
        for (auto it = edits.begin(); it != edits.end();)
          if (canonical_path(it->first) == canonical_path(e.file)) {
            notes.push_back(ir::display_path(e.file) + " is not fixed: it does not compile as it is");
            it = edits.erase(it);
          } else {
            ++it;
          }
      for (const auto& note : notes) std::cerr << "qlint: note: " << note << "\n";
      if (!options.export_fixes.empty()) {
        // Written as --fix writes a source (a temporary file, synced, renamed): a FIFO, a device
        // or a full disk is one line and exit 2, never a blocked open or a silent short write.
        if (std::string why = write_export(options.export_fixes, export_yaml(reports, edits, options.unsafe_fixes));
            !why.empty()) {
          std::cerr << "qlint: error: " << ir::printable(options.export_fixes, 200) << ": " << why
                    << " (--export-fixes)\n";
          return kExitError;
        }
      }
      if (options.fix) fix_summary = fix_files(linter, fixed_texts(edits), reports, errors);
      nothing_to_apply = edits.empty();
      if (options.fix && nothing_to_apply) fix_summary = nothing_fixed(reports, options.unsafe_fixes);
    }
  } catch (const std::runtime_error& e) {  // ir::ImportError (no compilation database), BackendError
    std::cerr << "qlint: error: " << e.what() << "\n";
    return kExitError;
  }
  std::vector<ToolNote> notes;
  std::vector<const ir::Model*> models;
  for (const auto& r : reports) models.push_back(r.model.get());
  const SharedArchiveNames shared = shared_archive_names(models);
  for (const auto& r : reports) {
    std::vector<ToolNote> own = model_notes(*r.model, NotesFor::QlintCxx, shared);
    notes.insert(notes.end(), own.begin(), own.end());
  }
  for (const ToolNote& n : notes) std::cerr << ir::display_location(n.loc) << ": note: " << n.message << "\n";
  // A warning, not an error: the checked files may be a part of what a build script names.
  if (!reports.empty())
    for (const std::string& entry : linter.archives_naming_nothing())
      std::cerr << "qlint: warning: `--archive " << ir::printable(entry, 300)
                << "` names no path of a `torch::jit::load` in the checked files (a variable or the expression as "
                   "written, such as `Config::kModelPath` or `argv[1]`); it was not applied\n";
  for (const InputError& error : errors) print_error(options.check, error);
  CheckOptions shown = options.check;
  shown.fix = options.fix && !nothing_to_apply;
  print_reports(reports, errors, shown, fix_summary, &notes);
  if (!errors.empty()) return kExitError;
  if (options.check.exit_zero) return kExitClean;
  for (const auto& r : reports)
    if (!r.diagnostics.empty()) return kExitFindings;
  return kExitClean;
}

}  // namespace qlint::cli
