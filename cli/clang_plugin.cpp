// libqlint_clang.so: qlint as a Clang compiler plugin. `clang++ -fplugin=libqlint_clang.so`
// lowers each translation unit after Clang parsed it (ir/cxx/lowering.h), runs the rules and
// reports their findings as Clang warnings, so a normal build shows them (docs/cxx.md).
//
// Clang 14 has no way for a plugin to add a warning group: `-Wqlint` and friends are read here,
// from the command line's warning options, and work as for a built-in group (`-Wno-qlint`,
// `-Werror=qlint`, `-Wno-error=qlint`, `-Werror`, `-w`). Options: -fplugin-arg-qlint-KEY=VALUE
// with KEY select, ignore, quant-function, config, isolated, archive (docs/cxx.md).
#include <clang/AST/ASTConsumer.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendPluginRegistry.h>

#include <optional>
#include <sstream>

#include "analysis/facts.h"
#include "cli/commands.h"
#include "cli/config.h"
#include "cli/cxx_notes.h"
#include "cli/filter.h"
#include "ir/cxx/lowering.h"
#include "ir/import_error.h"
#include "rules/registry.h"

namespace qlint::cli {

namespace {

struct PluginOptions {
  Selection selection;
  std::vector<std::string> quant_functions;
  std::vector<std::string> archives;
  std::string config;
  bool isolated = false;
  bool as_error = false;  // -fplugin-arg-qlint-error
};

std::vector<std::string> comma_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// What the command line's -W options make of the qlint group: off, a warning, or an error.
enum class Level { Ignored, Warning, Error };

Level qlint_level(const clang::CompilerInstance& ci, bool as_error) {
  const clang::DiagnosticOptions& opts = ci.getDiagnosticOpts();
  if (opts.IgnoreWarnings) return Level::Ignored;
  bool enabled = true;
  bool error = as_error;
  for (const std::string& w : opts.Warnings) {
    if (w == "no-qlint") enabled = false;
    if (w == "qlint" || w == "everything") enabled = true;
    if (w == "error" || w == "error=qlint") error = true;
    if (w == "error=qlint") enabled = true;
    if (w == "no-error=qlint" || w == "no-error") error = false;
  }
  if (!enabled) return Level::Ignored;
  return error ? Level::Error : Level::Warning;
}

class QlintConsumer : public clang::ASTConsumer {
 public:
  QlintConsumer(clang::CompilerInstance& ci, PluginOptions options) : ci_(ci), options_(std::move(options)) {}

  void HandleTranslationUnit(clang::ASTContext& context) override {
    clang::DiagnosticsEngine& diags = context.getDiagnostics();
    Level level = qlint_level(ci_, options_.as_error);
    if (level == Level::Ignored || diags.hasErrorOccurred()) return;
    clang::SourceManager& sm = context.getSourceManager();
    try {
      const clang::FileEntry* main = sm.getFileEntryForID(sm.getMainFileID());
      const std::string file = main ? main->tryGetRealPathName().str() : "";
      CheckOptions check;
      check.selection = options_.selection;
      check.isolated = options_.isolated;
      check.config_file = options_.config;
      cxx::Options front_end;
      front_end.quant_functions = options_.quant_functions;
      front_end.archives = options_.archives;
      if (!options_.isolated && !file.empty()) {
        check = options_for(file, check);
        std::optional<Config> config = options_.config.empty() ? find_config(file) : load_config(options_.config);
        if (config)
          front_end.quant_functions.insert(front_end.quant_functions.end(), config->quant_functions.begin(),
                                           config->quant_functions.end());
      }
      // The compiler process loads no LibTorch, so no archive is read: each model run says so in a
      // remark, as `qlint cxx` notes an archive it cannot read (public C++ round 20: a
      // `-Werror=qlint` build passed code that `qlint cxx` fails, without a word).
      front_end.archive_quantized = [](const std::string&) {
        cxx::ArchiveVerdict verdict;
        verdict.unread = "is not read by the compiler plugin, which loads no LibTorch (`qlint cxx` reads it)";
        return verdict;
      };
      ir::Model model = cxx::lower_translation_unit(context, front_end);
      auto facts = analysis::Facts::compute(model, check.stubs);
      for (const Diagnostic& d : filter_diagnostics(model, rules::run_all(facts), check.selection))
        report(diags, sm, d, level);
      // A remark: a note with no warning before it is dropped by Clang, and a warning would fail a
      // `-Werror` build over a model qlint did not analyse.
      unsigned note = diags.getCustomDiagID(clang::DiagnosticsEngine::Remark, "qlint: %0");
      for (const ToolNote& n : model_notes(model, NotesFor::CompilerPlugin))
        diags.Report(location(sm, n.loc.file, n.loc.line, n.loc.column), note) << n.message;
    } catch (const std::exception& e) {
      unsigned id = diags.getCustomDiagID(clang::DiagnosticsEngine::Warning, "qlint could not check this file: %0");
      diags.Report(id) << e.what();
    }
  }

 private:
  clang::SourceLocation location(clang::SourceManager& sm, const std::string& file, int line, int column) {
    auto entry = sm.getFileManager().getFile(file);
    if (!entry || line <= 0) return {};
    return sm.translateFileLineCol(*entry, static_cast<unsigned>(line), static_cast<unsigned>(std::max(column, 1)));
  }

  void report(clang::DiagnosticsEngine& diags, clang::SourceManager& sm, const Diagnostic& d, Level level) {
    const bool error = level == Level::Error || d.severity == Severity::Error;
    unsigned id = error ? diags.getCustomDiagID(clang::DiagnosticsEngine::Error, "%0 [%1] [-Werror,-Wqlint]")
                        : diags.getCustomDiagID(clang::DiagnosticsEngine::Warning, "%0 [%1] [-Wqlint]");
    clang::SourceLocation begin = location(sm, d.loc.file, d.loc.line, d.loc.column);
    {  // emitted when the builder goes, before its notes
      auto builder = diags.Report(begin, id);
      builder << d.message << d.rule;
      if (begin.isValid() && d.loc.end_line == d.loc.line && d.loc.end_column > d.loc.column) {
        clang::SourceLocation end = location(sm, d.loc.file, d.loc.end_line, d.loc.end_column);
        if (end.isValid()) builder << clang::CharSourceRange::getCharRange(begin, end);
      }
    }
    unsigned note = diags.getCustomDiagID(clang::DiagnosticsEngine::Note, "%0");
    for (const std::string& text : d.notes) diags.Report(begin, note) << text;
  }

  clang::CompilerInstance& ci_;
  PluginOptions options_;
};

class QlintAction : public clang::PluginASTAction {
 protected:
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci, llvm::StringRef) override {
    return std::make_unique<QlintConsumer>(ci, options_);
  }

  bool ParseArgs(const clang::CompilerInstance& ci, const std::vector<std::string>& args) override {
    for (const std::string& arg : args) {
      auto eq = arg.find('=');
      std::string key = arg.substr(0, eq);
      std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
      if (key == "select") {
        for (auto& id : comma_list(value)) options_.selection.select.push_back(id);
      } else if (key == "ignore") {
        for (auto& id : comma_list(value)) options_.selection.ignore.push_back(id);
      } else if (key == "quant-function") {
        for (auto& name : comma_list(value)) options_.quant_functions.push_back(name);
      } else if (key == "archive") {
        options_.archives.push_back(value);
      } else if (key == "config") {
        options_.config = value;
      } else if (key == "isolated") {
        options_.isolated = true;
      } else if (key == "error") {
        options_.as_error = true;
      } else {
        clang::DiagnosticsEngine& diags = ci.getDiagnostics();
        unsigned id = diags.getCustomDiagID(clang::DiagnosticsEngine::Error,
                                            "unknown qlint plugin option '%0' (known: select, ignore, quant-function, "
                                            "archive, config, isolated, error)");
        diags.Report(id) << arg;
        return false;
      }
    }
    try {
      validate_selection(options_.selection);
    } catch (const std::invalid_argument& e) {
      clang::DiagnosticsEngine& diags = ci.getDiagnostics();
      diags.Report(diags.getCustomDiagID(clang::DiagnosticsEngine::Error, "qlint: %0")) << e.what();
      return false;
    }
    return true;
  }

  // After the compiler's own action: the build goes on as without the plugin.
  ActionType getActionType() override { return AddAfterMainAction; }

 private:
  PluginOptions options_;
};

}  // namespace

}  // namespace qlint::cli

static clang::FrontendPluginRegistry::Add<qlint::cli::QlintAction> registration("qlint", "find quantization hazards");
