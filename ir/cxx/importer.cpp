#include "ir/cxx/importer.h"

#include <clang/Basic/DiagnosticLex.h>
#include <clang/Driver/Options.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Tooling/ArgumentsAdjusters.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/Tooling.h>
#include <fcntl.h>
#include <llvm/Option/ArgList.h>
#include <llvm/Option/OptTable.h>
#include <llvm/Support/raw_ostream.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "ir/archive_flag.h"
#include "ir/cxx/lowering.h"
#include "ir/import_error.h"
#include "ir/input_file.h"
#include "ir/large_stack.h"
#include "ir/text.h"

namespace qlint::cxx {

namespace {

// Lowers each parsed file once Clang has its AST.
class LoweringConsumer : public clang::ASTConsumer {
 public:
  LoweringConsumer(const Options& options, std::map<std::string, ImportedFile>& results, std::string file)
      : options_(options), results_(results), file_(std::move(file)) {}

  void HandleTranslationUnit(clang::ASTContext& context) override {
    ImportedFile& result = results_[file_];
    result.file = file_;
    // With errors, the functions Clang parsed without one are lowered (lowering skips the
    // others); the caller records the error itself.
    result.partial = context.getDiagnostics().hasErrorOccurred();
    try {
      CrossFileFacts facts;
      result.model = lower_translation_unit(context, options_, &result.archives_named, &facts);
      result.returns_model = std::move(facts.returns_model);
      result.calls_elsewhere = std::move(facts.calls_elsewhere);
      result.archive_parameters = std::move(facts.archive_parameters);
      result.passes_model = std::move(facts.passes_model);
      result.defines = std::move(facts.defines);
      // QLINT_DEBUG=cxx-ir: the IR each file lowers to, for whoever works on the front end.
      if (const char* debug = std::getenv("QLINT_DEBUG"); debug && std::strstr(debug, "cxx-ir") != nullptr)
        std::fprintf(stderr, "%s", ir::print_model(result.model).c_str());
    } catch (const ir::ImportError& e) {
      result.error = e.what();
      result.partial = false;
    }
  }

 private:
  const Options& options_;
  std::map<std::string, ImportedFile>& results_;
  std::string file_;
};

class LoweringAction : public clang::ASTFrontendAction {
 public:
  LoweringAction(const Options& options, std::map<std::string, ImportedFile>& results)
      : options_(options), results_(results) {}

  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance&, llvm::StringRef file) override {
    return std::make_unique<LoweringConsumer>(options_, results_, file.str());
  }

 private:
  const Options& options_;
  std::map<std::string, ImportedFile>& results_;
};

class LoweringFactory : public clang::tooling::FrontendActionFactory {
 public:
  LoweringFactory(const Options& options, std::map<std::string, ImportedFile>& results)
      : options_(options), results_(results) {}
  std::unique_ptr<clang::FrontendAction> create() override {
    return std::make_unique<LoweringAction>(options_, results_);
  }

 private:
  const Options& options_;
  std::map<std::string, ImportedFile>& results_;
};

// Collects Clang's errors per file instead of printing them: a file that does not compile is
// an input error of its own, named in one line. An error inside a file outside the project (a
// source can `#include "/etc/passwd"`) is named by place only: Clang's message would quote the
// file's text ("unknown type name 'root'").
class ErrorCollector : public clang::DiagnosticConsumer {
 public:
  explicit ErrorCollector(std::string main_file) : main_file_(std::move(main_file)) {}

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < clang::DiagnosticsEngine::Error || !first_error.empty()) return;
    llvm::SmallString<256> text;
    info.FormatDiagnostic(text);
    first_error = text.str().str();
    if (info.hasSourceManager() && info.getLocation().isValid()) {
      clang::PresumedLoc where = info.getSourceManager().getPresumedLoc(info.getLocation());
      if (where.isValid()) {
        const std::string file = where.getFilename();
        // A header that a header outside the project includes and that is not found (CUDA's on a
        // CPU-only machine) is named: the name is an #include's, and the user needs it to add -I.
        if (!ir::is_project_file(file, main_file_))
          first_error = info.getID() == clang::diag::err_pp_file_not_found
                            ? first_error +
                                  " (included by a header outside the project's source tree: add the "
                                  "directory that has it with -I, or leave out what includes it)"
                            : "an error in a file outside the project's source tree (its text is not shown)";
        first_error =
            file + ":" + std::to_string(where.getLine()) + ":" + std::to_string(where.getColumn()) + ": " + first_error;
      }
    }
  }
  std::string first_error;

 private:
  std::string main_file_;
};

// Why a file cannot be parsed with its compile commands before Clang tries: LibTooling changes
// into each command's directory and aborts the process (`LLVM ERROR: Cannot chdir`) when it is
// gone, as it is in a database made on another machine. "" when they can run.
std::string unusable_command(const std::vector<clang::tooling::CompileCommand>& commands) {
  for (const auto& command : commands) {
    std::error_code ec;
    if (!std::filesystem::is_directory(command.Directory, ec))
      return "its compile command's directory " + ir::printable(command.Directory, 200) +
             " does not exist (was compile_commands.json made on another machine?)";
  }
  return "";
}

// A GCC project's compile commands may hold flags Clang's driver does not know (-fipa-pta,
// -fconcepts-diagnostics-depth=3), each an error that stops the file: they are dropped, as
// clangd drops them. They change code generation or GCC's own diagnostics, not what the
// source means.
clang::tooling::ArgumentsAdjuster drop_unknown_arguments() {
  return [](const clang::tooling::CommandLineArguments& args, llvm::StringRef) {
    if (args.size() < 2) return args;
    std::vector<const char*> argv;
    for (size_t i = 1; i < args.size(); ++i) argv.push_back(args[i].c_str());
    unsigned missing_index = 0, missing_count = 0;
    llvm::opt::InputArgList parsed = clang::driver::getDriverOptTable().ParseArgs(argv, missing_index, missing_count);
    std::set<unsigned> unknown;
    for (const llvm::opt::Arg* arg : parsed.filtered(clang::driver::options::OPT_UNKNOWN))
      unknown.insert(arg->getIndex() + 1);
    clang::tooling::CommandLineArguments kept;
    for (size_t i = 0; i < args.size(); ++i)
      if (!unknown.count(static_cast<unsigned>(i))) kept.push_back(args[i]);
    return kept;
  };
}

std::unique_ptr<clang::tooling::CompilationDatabase> database(const ImportRequest& request) {
  std::string error;
  if (request.use_fixed_args)
    return std::make_unique<clang::tooling::FixedCompilationDatabase>(
        request.build_dir.empty() ? std::string(".") : request.build_dir, request.fixed_args);
  auto db = clang::tooling::CompilationDatabase::loadFromDirectory(request.build_dir, error);
  // LibTooling says why per database kind, a line each: one line for the user.
  for (char& c : error)
    if (c == '\n') c = ';';
  while (!error.empty() && (error.back() == ';' || error.back() == ' ')) error.pop_back();
  if (!db)
    throw ir::ImportError("no compilation database in " + request.build_dir +
                          " (configure the project with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON): " + error);
  return db;
}

// Parses one file with Clang and lowers it; Clang's first error, if any, in `error`.
ImportedFile parse_file(clang::tooling::CompilationDatabase& db, const ImportRequest& request, const Options& options,
                        const std::string& file, const std::string& absolute) {
  ImportedFile result;
  result.file = file;
  clang::tooling::ClangTool tool(db, {absolute});
  if (auto overlay = request.overlays.find(absolute); overlay != request.overlays.end())
    tool.mapVirtualFile(absolute, overlay->second);
  // GCC's driver in compile_commands.json finds no Clang builtin headers: name Clang's own.
  tool.appendArgumentsAdjuster(clang::tooling::getInsertArgumentAdjuster(
      // -fno-caret-diagnostics: no "N errors generated." line; ErrorCollector says it in one.
      {"-resource-dir=" QLINT_CLANG_RESOURCE_DIR, "-Wno-unknown-warning-option", "-Wno-everything",
       "-fno-caret-diagnostics"},
      clang::tooling::ArgumentInsertPosition::END));
  if (!request.extra_args.empty())
    tool.appendArgumentsAdjuster(clang::tooling::getInsertArgumentAdjuster(
        clang::tooling::CommandLineArguments(request.extra_args.begin(), request.extra_args.end()),
        clang::tooling::ArgumentInsertPosition::END));
  tool.appendArgumentsAdjuster(drop_unknown_arguments());
  ErrorCollector errors(absolute);
  tool.setDiagnosticConsumer(&errors);
  tool.setPrintErrorMessage(false);  // "Error while processing FILE.": the error line says it
  std::map<std::string, ImportedFile> results;
  LoweringFactory factory(options, results);
  int status = tool.run(&factory);
  if (!results.empty()) result = std::move(results.begin()->second);
  result.file = file;
  if (status != 0 && result.error.empty())
    result.error = "does not compile: " + (errors.first_error.empty() ? "Clang failed" : errors.first_error);
  if (result.error.empty() || result.model.functions.empty()) result.partial = false;
  return result;
}

// Strings, each with its length, then a `;`.
std::string encode_list(const std::vector<std::string>& entries) {
  std::string out;
  for (const std::string& entry : entries) out += std::to_string(entry.size()) + ":" + entry;
  return out + ";";
}

// Reads what encode_list wrote at `at`, and moves `at` past it.
std::vector<std::string> decode_list(const std::string& message, size_t& at) {
  std::vector<std::string> out;
  while (at < message.size() && message[at] != ';') {
    const size_t colon = message.find(':', at);
    if (colon == std::string::npos) break;
    const size_t size = std::stoul(message.substr(at, colon - at));
    out.push_back(message.substr(colon + 1, size));
    at = colon + 1 + size;
  }
  if (at < message.size()) ++at;
  return out;
}

// A ReturnedModel's fields after `key` (six strings), as decode_returned reads them.
void encode_returned(const std::string& key, const ReturnedModel& r, std::vector<std::string>& out) {
  for (const std::string* field : {&key, &r.function, &r.where, &r.archive, &r.why}) out.push_back(*field);
  out.push_back(std::to_string(r.element));
}

ReturnedModel decode_returned(const std::vector<std::string>& fields, size_t i) {
  return {fields[i + 1], fields[i + 2], fields[i + 3], fields[i + 4], std::strtoll(fields[i + 5].c_str(), nullptr, 10)};
}

// What a file tells the others (ImportedFile), before its model: the `--archive` entries it
// named, the functions that return a model's outputs (six fields each), the calls elsewhere,
// the outputs passed to them (a parameter's index, then six fields), the functions it defines.
std::string encode_archives(const ImportedFile& imported) {
  std::vector<std::string> returns, passes;
  for (const auto& [key, r] : imported.returns_model) encode_returned(key, r, returns);
  for (const auto& [key, parameters] : imported.passes_model)
    for (const auto& [index, r] : parameters) {
      passes.push_back(std::to_string(index));
      encode_returned(key, r, passes);
    }
  return encode_list(imported.archives_named) + encode_list(returns) +
         encode_list({imported.calls_elsewhere.begin(), imported.calls_elsewhere.end()}) +
         encode_list({imported.archive_parameters.begin(), imported.archive_parameters.end()}) + encode_list(passes) +
         encode_list({imported.defines.begin(), imported.defines.end()});
}

// Reads what encode_archives wrote at `at` into `result`, and moves `at` past it.
void decode_archives(const std::string& message, size_t& at, ImportedFile& result) {
  result.archives_named = decode_list(message, at);
  const std::vector<std::string> returns = decode_list(message, at);
  for (size_t i = 0; i + 5 < returns.size(); i += 6) result.returns_model[returns[i]] = decode_returned(returns, i);
  const std::vector<std::string> calls = decode_list(message, at);
  result.calls_elsewhere.insert(calls.begin(), calls.end());
  const std::vector<std::string> parameters = decode_list(message, at);
  result.archive_parameters.insert(parameters.begin(), parameters.end());
  const std::vector<std::string> passes = decode_list(message, at);
  for (size_t i = 0; i + 6 < passes.size(); i += 7)
    result.passes_model[passes[i + 1]][std::strtoull(passes[i].c_str(), nullptr, 10)] = decode_returned(passes, i + 1);
  const std::vector<std::string> defines = decode_list(message, at);
  result.defines.insert(defines.begin(), defines.end());
}

// What the child process sends back: a tag byte, then the error or the model's text IR, or
// both (the error, a NUL, the model) for a file that parsed in part.
std::string encode(const ImportedFile& imported) {
  if (imported.partial)
    return "P" + imported.error + '\0' + encode_archives(imported) + ir::print_model(imported.model);
  return imported.error.empty() ? "M" + encode_archives(imported) + ir::print_model(imported.model)
                                : "E" + imported.error;
}

ImportedFile decode(const std::string& file, const std::string& message) {
  ImportedFile result;
  result.file = file;
  if (message.empty()) {
    result.error = "Clang stopped on it without a result (its own error above, if any)";
  } else if (message[0] == 'E') {
    result.error = message.substr(1);
  } else {
    size_t model_at = 1;
    if (message[0] == 'P') {
      const size_t nul = message.find('\0');
      result.error = message.substr(1, nul == std::string::npos ? std::string::npos : nul - 1);
      model_at = nul == std::string::npos ? message.size() : nul + 1;
      result.partial = true;
    }
    try {
      decode_archives(message, model_at, result);
      result.model = std::move(ir::parse_model(message.substr(model_at)).model);
    } catch (const ir::ParseError& e) {
      result.error = std::string("its model could not be carried over from the parse: ") + e.what();
      result.partial = false;
    }
  }
  return result;
}

bool write_all(int fd, const std::string& data) {
  for (size_t done = 0; done < data.size();) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// A file parsed in a child process, one per file as run-clang-tidy does: a translation unit
// that crashes Clang itself (it recurses per level of nesting, per term of an expression; plain
// clang++-14 dies on 20,000 of them) costs only that file, and the other files go on. The
// child parses on a large stack (ir/large_stack.h) and hands the model back as text IR through
// a pipe, which the parent drains while other children run.
struct Child {
  pid_t pid = -1;
  int fd = -1;
  size_t index = 0;  // of the file in the request
  std::string message;
};

// Starts `parse` in a child; nullopt when no child can be made (then the caller parses itself).
std::optional<Child> start_child(const std::function<ImportedFile()>& parse) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return std::nullopt;
  std::fflush(nullptr);
  pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return std::nullopt;
  }
  if (child == 0) {
    ::close(fds[0]);
    // Clang's name lookup is quadratic in some shapes (200,000 nested braceless `if`s took over
    // ten minutes): past the limit the file is given up, as a crash is.
    // The default action, unblocked, whatever the parent set: the alarm must end the child.
    ::signal(SIGALRM, SIG_DFL);
    sigset_t alarm_only;
    sigemptyset(&alarm_only);
    sigaddset(&alarm_only, SIGALRM);
    ::pthread_sigmask(SIG_UNBLOCK, &alarm_only, nullptr);
    ::alarm(static_cast<unsigned>(std::min<uint64_t>(ir::limits().parse_seconds, UINT_MAX)));
    std::string message;
    try {
      message = encode(ir::on_large_stack(parse));
    } catch (const std::exception& e) {
      message = std::string("E") + e.what();
    }
    _exit(write_all(fds[1], message) ? 0 : 1);
  }
  ::close(fds[1]);
  Child c;
  c.pid = child;
  c.fd = fds[0];
  return c;
}

// Reads what is there; false once the child closed its end.
bool read_some(Child& c) {
  char buffer[1 << 16];
  while (true) {
    ssize_t n = ::read(c.fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    c.message.append(buffer, static_cast<size_t>(n));
    return true;
  }
}

// The child's result once its pipe is closed: its model, or why there is none.
ImportedFile finish_child(const std::string& file, Child& c) {
  ::close(c.fd);
  int status = 0;
  while (::waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
    ImportedFile slow;
    slow.file = file;
    slow.error = ir::limit_error("Clang's time on it", "parse-seconds", 0) + "; the other files were checked";
    return slow;
  }
  if (WIFSIGNALED(status)) {
    ImportedFile crashed;
    crashed.file = file;
    crashed.error = std::string("Clang itself crashed on it (") + ::strsignal(WTERMSIG(status)) +
                    "; deep nesting or very long expressions exhaust Clang's stack, plain clang++ fails on it too); "
                    "the other files were checked";
    return crashed;
  }
  return decode(file, c.message);
}

// Parses the files `parse(i)` names, up to `jobs` children at once, each result at its index.
void parse_in_children(const std::vector<size_t>& indices, const std::vector<std::string>& files, unsigned jobs,
                       const std::function<ImportedFile(size_t)>& parse, std::vector<ImportedFile>& out,
                       const std::function<void(size_t)>& done) {
  std::vector<Child> running;
  size_t next = 0;
  while (next < indices.size() || !running.empty()) {
    while (running.size() < std::max(1u, jobs) && next < indices.size()) {
      const size_t index = indices[next++];
      std::optional<Child> child = start_child([&parse, index] { return parse(index); });
      if (!child) {
        out[index] = parse(index);
        done(index);
        continue;
      }
      child->index = index;
      running.push_back(std::move(*child));
    }
    if (running.empty()) continue;
    std::vector<pollfd> polled;
    for (const Child& c : running) polled.push_back({c.fd, POLLIN, 0});
    if (::poll(polled.data(), polled.size(), -1) < 0 && errno != EINTR) break;
    for (size_t i = running.size(); i-- > 0;) {
      if (polled[i].revents == 0 || read_some(running[i])) continue;
      out[running[i].index] = finish_child(files[running[i].index], running[i]);
      done(running[i].index);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  for (Child& c : running) {  // poll failed: each child's result as it stands
    while (read_some(c)) {
    }
    out[c.index] = finish_child(files[c.index], c);
  }
}

// Files are parsed one by one (each in a child process), so what one learns of a function it
// defines (it returns a model's outputs) reaches the others only after all are parsed: each file
// that calls such a function of another file is parsed again, told of it
// (Options::returned_models). Once: a function that returns what another file's function
// returns is followed one file deep.
// A bare `--archive NAME` applied to the parameters (or locals) of functions of different files
// (two classes' `model_path` in det.cpp and reid.cpp, as a ROS node keeps them): NAME -> their
// qualified names. One path for both would give one model a false finding, and the note in one
// file does not show the other, so it is applied to none (Options::ambiguous_names). Functions
// that one file holds all of (a test's helpers, each loading `model_path`) take the name as
// before: that file's reader sees them together.
std::map<std::string, std::string> ambiguous_archive_names(const std::vector<ImportedFile>& out) {
  std::map<std::string, std::map<std::string, std::set<size_t>>> applied;  // NAME -> function -> files
  for (size_t i = 0; i < out.size(); ++i)
    for (const std::string& use : out[i].archive_parameters)
      if (size_t cut = use.find('\n'); cut != std::string::npos)
        applied[use.substr(0, cut)][use.substr(cut + 1)].insert(i);
  std::map<std::string, std::string> ambiguous;
  for (const auto& [name, functions] : applied) {
    if (functions.size() < 2 || ir::one_file_holds_all(functions)) continue;
    std::string listed;
    for (const auto& [function, files] : functions) listed += (listed.empty() ? "" : ", ") + function;
    ambiguous[name] = listed;
  }
  return ambiguous;
}

bool uses_any(const ImportedFile& file, const std::map<std::string, std::string>& ambiguous) {
  return std::any_of(file.archive_parameters.begin(), file.archive_parameters.end(),
                     [&](const std::string& use) { return ambiguous.count(use.substr(0, use.find('\n'))) > 0; });
}

using PassedModels = std::map<std::string, std::map<size_t, ReturnedModel>>;

// The models' outputs the files' calls pass to functions of other files (Options::passed_models).
// A parameter that calls pass different models (or elements) is left out.
PassedModels passed_models(const std::vector<ImportedFile>& out) {
  PassedModels passed;
  std::set<std::pair<std::string, size_t>> conflicting;
  for (const ImportedFile& file : out)
    for (const auto& [key, parameters] : file.passes_model)
      for (const auto& [index, run] : parameters) {
        if (conflicting.count({key, index})) continue;
        auto [it, first] = passed[key].try_emplace(index, run);
        if (!first && std::tie(it->second.archive, it->second.element) != std::tie(run.archive, run.element)) {
          passed[key].erase(it);
          conflicting.insert({key, index});
        }
      }
  return passed;
}

// Whether the file defines a function of `keys` (by function_key).
bool defines_any(const ImportedFile& file, const std::set<std::string>& keys) {
  return std::any_of(keys.begin(), keys.end(), [&](const std::string& key) { return file.defines.count(key) > 0; });
}

// The functions whose parameters `after` tells of other models than `before` does.
std::set<std::string> changed_passes(const PassedModels& before, const PassedModels& after) {
  auto same = [](const std::map<size_t, ReturnedModel>& a, const std::map<size_t, ReturnedModel>& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const auto& x, const auto& y) {
             return x.first == y.first && std::tie(x.second.archive, x.second.element, x.second.where) ==
                                              std::tie(y.second.archive, y.second.element, y.second.where);
           });
  };
  std::set<std::string> changed;
  for (const PassedModels* side : {&before, &after})
    for (const auto& [key, parameters] : *side) {
      auto other = (side == &before ? after : before).find(key);
      if (other == (side == &before ? after : before).end() || !same(parameters, other->second)) changed.insert(key);
    }
  return changed;
}

void reparse_told_of_others(clang::tooling::CompilationDatabase& db, const ImportRequest& request,
                            const Options& options, const std::vector<std::string>& absolute,
                            std::vector<ImportedFile>& out) {
  Options told = options;
  for (const ImportedFile& file : out)
    for (const auto& [key, returned] : file.returns_model) told.returned_models.emplace(key, returned);
  told.ambiguous_names = ambiguous_archive_names(out);
  told.passed_models = passed_models(out);
  std::set<std::string> passed_to;
  for (const auto& [key, parameters] : told.passed_models) passed_to.insert(key);
  auto parse = [&](const std::vector<size_t>& files) {
    parse_in_children(
        files, request.files, request.jobs,
        [&](size_t i) { return parse_file(db, request, told, request.files[i], absolute[i]); }, out, [](size_t) {});
  };
  std::vector<size_t> again;
  for (size_t i = 0; i < out.size(); ++i) {
    if (!out[i].error.empty() && !out[i].partial) continue;
    const bool calls = std::any_of(out[i].calls_elsewhere.begin(), out[i].calls_elsewhere.end(),
                                   [&](const std::string& key) { return told.returned_models.count(key) > 0; });
    if (calls || uses_any(out[i], told.ambiguous_names) || defines_any(out[i], passed_to)) again.push_back(i);
  }
  if (again.empty()) return;
  parse(again);
  // Outputs that a caller only knew for a model's once told of another file's function, and
  // passed on (`draw(raft.forward(a, b))` in main.cpp, `forward` in raft.cpp, `draw` in viz.cpp):
  // the file that defines the function they are passed to, once more. One step: no further.
  PassedModels now = passed_models(out);
  const std::set<std::string> changed = changed_passes(told.passed_models, now);
  told.passed_models = std::move(now);
  std::vector<size_t> once_more;
  for (size_t i = 0; i < out.size(); ++i)
    if ((out[i].error.empty() || out[i].partial) && defines_any(out[i], changed)) once_more.push_back(i);
  if (!once_more.empty()) parse(once_more);
}

}  // namespace

std::vector<ImportedFile> import_cxx(const ImportRequest& request, const Options& options) {
  auto db = database(request);
  std::vector<ImportedFile> out(request.files.size());
  std::vector<std::string> absolute(request.files.size());
  std::vector<size_t> to_parse;
  size_t done = 0;
  auto report = [&](size_t index) {
    if (request.progress) request.progress(++done, request.files.size(), request.files[index]);
  };
  for (size_t i = 0; i < request.files.size(); ++i) {
    const std::string& file = request.files[i];
    std::error_code ec;
    absolute[i] = std::filesystem::absolute(file, ec).lexically_normal().string();
    out[i].file = file;
    try {  // a FIFO would block Clang's read, a directory is no source: each named as such
      ir::check_regular_file(absolute[i], UINT64_MAX, "");
    } catch (const ir::ImportError& e) {
      out[i].error = e.what();
      report(i);
      continue;
    }
    const std::vector<clang::tooling::CompileCommand> commands = db->getCompileCommands(absolute[i]);
    if (commands.empty() && !request.use_fixed_args) {
      out[i].error = "not in the compilation database of " + request.build_dir;
      report(i);
      continue;
    }
    if (std::string why = unusable_command(commands); !why.empty()) {
      out[i].error = why;
      report(i);
      continue;
    }
    to_parse.push_back(i);
  }
  parse_in_children(
      to_parse, request.files, request.jobs,
      [&](size_t i) { return parse_file(*db, request, options, request.files[i], absolute[i]); }, out, report);
  reparse_told_of_others(*db, request, options, absolute, out);
  return out;
}

std::vector<std::string> database_files(const std::string& build_dir) {
  ImportRequest request;
  request.build_dir = build_dir;
  std::set<std::string> files;  // sorted, each once: the database's own order is a hash map's
  for (const std::string& file : database(request)->getAllFiles()) files.insert(file);
  return {files.begin(), files.end()};
}

}  // namespace qlint::cxx
