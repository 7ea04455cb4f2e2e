// qlint's command line: one function per subcommand defines its options, one runs it; the work
// is in cli/commands.cpp.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <set>
#include <thread>

#include "cli/commands.h"
#include "cli/config.h"
#include "cli/cxx_command.h"
#include "cli/server/server.h"
#include "cli/torch_backend.h"
#include "ir/display.h"
#include "ir/input_file.h"

namespace {

namespace cli = qlint::cli;

// `qlint FILE...` means `qlint check FILE...`.
std::vector<std::string> with_default_command(int argc, char** argv) {
  static const std::set<std::string> commands = {"check", "dump", "sim",    "rules",     "explain", "docs",
                                                 "cxx",   "-h",   "--help", "--version", "server"};
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && !commands.count(args[0])) args.insert(args.begin(), "check");
  std::reverse(args.begin(), args.end());  // CLI11 takes them in reverse order
  return args;
}

bool color_wanted(bool no_color) {
  const char* no_color_env = std::getenv("NO_COLOR");  // no-color.org: set and non-empty
  if (no_color || (no_color_env != nullptr && *no_color_env != '\0')) return false;
  return isatty(STDOUT_FILENO) != 0;
}

// Options of every command that reads a model: stub classes, custom operator libraries, the
// limits on untrusted input (docs/reliability.md).
struct ModelOptions {
  std::vector<std::string> extra_quant_stubs, extra_dequant_stubs, operator_libraries, limits, source_roots;
  std::string engine;
  bool no_exec = false;

  void define(CLI::App* cmd, bool runs_model) {
    cmd->add_option("--limit", limits,
                    "Raise (or lower) a limit on untrusted input, NAME=VALUE (K, M, G suffixes): " +
                        qlint::ir::known_limits() + "; repeatable")
        ->allow_extra_args(false);
    cmd->add_option("--source-root", source_roots,
                    "Also show source lines from files under this directory (by default only from the working "
                    "directory, the model's directory and their git repositories); repeatable")
        ->allow_extra_args(false);
    if (runs_model)
      cmd->add_flag("--no-exec", no_exec,
                    "Refuse archives that define __setstate__, which LibTorch runs while loading (this command "
                    "runs the model's forward anyway)");
    else
      cmd->add_flag("--no-exec", no_exec,
                    "Never run archive code: loading a TorchScript archive runs the __setstate__ methods its "
                    "code defines (LibTorch does this; --input, --random-input and --fix run forward too); "
                    "--no-exec refuses archives that define one");
    cmd->add_option("--quant-stub-class", extra_quant_stubs,
                    "Another module class that quantizes like QuantStub (e.g. a toolchain's own "
                    "stub); a full or dotted-suffix name, repeatable")
        ->allow_extra_args(false);
    cmd->add_option("--dequant-stub-class", extra_dequant_stubs,
                    "Another module class that dequantizes like DeQuantStub; repeatable")
        ->allow_extra_args(false);
    cmd->add_option("--load-library", operator_libraries,
                    "A shared library that registers custom operators with LibTorch (as "
                    "torch.ops.load_library), loaded before TorchScript models; repeatable")
        ->allow_extra_args(false);
    cmd->add_option("--engine", engine,
                    "The quantized engine that runs converted int8 models' kernels (default qnnpack, whose "
                    "results are the same on every x86-64 CPU; onednn's and fbgemm's depend on the CPU)")
        ->check(CLI::IsMember({"qnnpack", "onednn", "fbgemm", "x86"}));
  }

  // The process's limits, before any model is read.
  void apply() const {
    qlint::cli::request_quantized_engine(engine);
    for (const auto& assignment : limits) qlint::ir::set_limit(qlint::ir::limits(), assignment);
    for (const auto& root : source_roots) qlint::ir::limits().source_roots.push_back(root);
    qlint::ir::limits().no_exec = no_exec;
  }

  qlint::analysis::StubClasses stubs() const {
    qlint::analysis::StubClasses stubs;
    stubs.quant.insert(stubs.quant.end(), extra_quant_stubs.begin(), extra_quant_stubs.end());
    stubs.dequant.insert(stubs.dequant.end(), extra_dequant_stubs.begin(), extra_dequant_stubs.end());
    return stubs;
  }
};

int apply_limits(const ModelOptions& model) {
  try {
    model.apply();
    return 0;
  } catch (const std::invalid_argument& e) {
    std::cerr << "qlint: error: " << e.what() << "\n";
    return cli::kExitError;
  }
}

// Options of every command that reports findings: output format, rule selection, configuration.
void define_report_options(CLI::App* cmd, cli::CheckOptions& o, bool& no_color) {
  cmd->add_option("--format", o.format, "Output format")
      ->check(CLI::IsMember({"text", "concise", "json", "sarif", "github", "gitlab"}))
      ->capture_default_str();
  cmd->add_option("--select", o.selection.select,
                  "Only these rules (comma-separated ids, or ALL; opt-in rules only by name)")
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_option("--ignore", o.selection.ignore, "Skip these rules (comma-separated ids)")
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_flag("--exit-zero", o.exit_zero, "Exit 0 even when there are findings");
  cmd->add_option("--config", o.config_file,
                  "Use this configuration file (.qlint.toml, or pyproject.toml with [tool.qlint])");
  cmd->add_flag("--isolated", o.isolated, "Ignore all configuration files");
  cmd->add_flag("--no-color", no_color, "Never colour the output");
}

// Unknown rule ids and an unreadable --config file are usage errors: one line, exit 2.
bool valid_selection_and_config(const cli::CheckOptions& o) {
  try {
    cli::validate_selection(o.selection);
    if (!o.config_file.empty()) cli::load_config(o.config_file);
    return true;
  } catch (const cli::ConfigError& e) {
    std::cerr << "qlint: error: " << e.what() << "\n";
  } catch (const std::invalid_argument& e) {
    std::cerr << "qlint: error: " << e.what() << "\n";
  }
  return false;
}

// --attribution-passes, for `check --input` and `sim --attribute`.
CLI::Option* add_attribution_passes_option(CLI::App* cmd) {
  return cmd->add_option("--attribution-passes")
      ->type_name("N")
      ->description(
          "Simulated passes the search for the quant points behind each divergence may run (default: "
          "as many as quantize about 2.7e8 values at the quant points, enough for every divergence of "
          "most models; 0: no attribution)")
      ->check(CLI::NonNegativeNumber);
}

struct CheckCommand {
  CLI::App* cmd = nullptr;
  CLI::Option* bits = nullptr;
  CLI::Option* attribution_passes = nullptr;
  cli::CheckOptions options;
  CLI::Option* min_sqnr_option = nullptr;
  double min_sqnr = 0;
  ModelOptions model;
  bool no_color = false;

  void define(CLI::App& app) {
    cmd = app.add_subcommand("check", "Lint TorchScript models, FX exports and ONNX models (the default command)");
    cmd->add_option("files", options.files,
                    "TorchScript archives, FX exports (*.json), ONNX models (*.onnx), or directories to search for "
                    "*.pt, *.pth, *.ptl, *.jit, *.torchscript, *.fx.json and *.onnx; none: nothing to do");
    define_report_options(cmd, options, no_color);
    cmd->add_flag("--statistics", options.statistics, "Print how many findings each rule has");
    cmd->add_option("-j,--jobs", options.jobs, "Models checked in parallel (default: one per core)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--input", options.inputs.files,
                    "Simulate on these inputs (torch.save files; runs the model's code) and attach the evidence: "
                    "scales, what constants become, flipped comparisons; repeatable")
        ->allow_extra_args(false);
    cmd->add_option(
        "--random-input", options.inputs.random_shapes,
        "Simulate on seeded random inputs of these shapes, e.g. 1x2x4x4,4x10:bool (dtypes: float, bool, int64)");
    bits = cmd->add_option("--bits", options.bits, "Quantization width for the simulation")
               ->check(CLI::IsMember({16, 8}))
               ->capture_default_str();
    min_sqnr_option =
        cmd->add_option("--min-sqnr", min_sqnr,
                        "With --input/--random-input: an output whose SQNR against float is under this many dB is "
                        "a sim-divergence finding (default: 40 for --bits 16, 20 for --bits 8)");
    cmd->add_flag("--recalibrate", options.recalibrate,
                  "Traced QAT models: calibrate instead of using the stored scales");
    attribution_passes = add_attribution_passes_option(cmd);
    cmd->add_flag("--fix", options.fix, "Rewrite the model in place (safe fixes), verify it and re-check");
    cmd->add_flag("--diff", options.diff, "Show what --fix would change (Python suggestion), write nothing");
    cmd->add_flag("--unsafe-fixes", options.unsafe_fixes, "Also apply fixes that may change float results");
    cmd->add_option("-o,--output", options.output, "With --fix: write the fixed model here instead");
    cmd->add_flag("--trust-config-libraries", options.trust_config_libraries,
                  "Load the operator libraries a configuration file in the scanned tree names "
                  "(operator-libraries); without it such a configuration is refused, since loading a library "
                  "runs its code (also QLINT_TRUST_CONFIG_LIBRARIES=1)");
    model.define(cmd, false);
  }

  int run() {
    options.stubs = model.stubs();
    options.bits_given = bits->count() > 0;
    if (min_sqnr_option->count() > 0) options.min_sqnr = min_sqnr;
    if (attribution_passes->count() > 0) options.attribution_passes = attribution_passes->as<int>();
    // On a terminal only (sim/simulator.cpp), and never beside output that tools read.
    options.progress = options.format != "json" && options.format != "sarif";
    if (apply_limits(model) != 0 || !valid_selection_and_config(options)) return cli::kExitError;
    if (!options.output.empty() && options.files.size() != 1) {
      std::cerr << "qlint: error: -o/--output takes one model file\n";
      return cli::kExitError;
    }
    if (!options.output.empty()) options.fix = true;
    options.color = color_wanted(no_color);
    options.operator_libraries = model.operator_libraries;
    return cli::run_check(options);
  }
};

struct CxxCommand {
  CLI::App* cmd = nullptr;
  cli::CxxOptions options;
  ModelOptions model;
  bool no_color = false;

  void define(CLI::App& app) {
    cmd = app.add_subcommand("cxx", "Lint C++ sources that use LibTorch (Clang front end; docs/cxx.md)");
    cli::CheckOptions& o = options.check;
    cmd->add_option("files", o.files, "C++ source files; compiler flags after `--` replace -p");
    cmd->add_option("-p,--build-dir", options.build_dir,
                    "Build directory with compile_commands.json (CMake: -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)");
    cmd->add_option("--extra-arg", options.extra_args, "A compiler argument added to every file's command; repeatable")
        ->allow_extra_args(false);
    cmd->add_option("--quant-function", options.quant_functions,
                    "A function that quantizes its first argument (a toolchain's own), by qualified name or "
                    "`::` suffix; repeatable")
        ->allow_extra_args(false);
    cmd->add_option("--archive", options.archives,
                    "VAR=PATH: the TorchScript archive a torch::jit::load(VAR) loads, when VAR is no string "
                    "literal; repeatable")
        ->allow_extra_args(false);
    cmd->add_flag("--fix", options.fix, "Apply the fixes to the sources (safe ones; see --unsafe-fixes)");
    cmd->add_option("--export-fixes", options.export_fixes,
                    "Write the fixes as Clang replacements (YAML) for clang-apply-replacements");
    cmd->add_flag("--unsafe-fixes", options.unsafe_fixes, "Also fixes that may change float results");
    cmd->add_option("-j,--jobs", options.jobs, "Files parsed in parallel (default: one per core)");
    cmd->add_option("--files", options.files_regex,
                    "With no files named: check the files of -p's compilation database that match this regular "
                    "expression (searched in the path, as run-clang-tidy's)");
    define_report_options(cmd, o, no_color);
    model.define(cmd, false);
  }

  int run(std::vector<std::string> fixed_args, bool use_fixed_args) {
    options.check.stubs = model.stubs();
    options.check.color = color_wanted(no_color);
    options.fixed_args = std::move(fixed_args);
    options.use_fixed_args = use_fixed_args;
    if (apply_limits(model) != 0 || !valid_selection_and_config(options.check)) return cli::kExitError;
    if (options.build_dir.empty() && !use_fixed_args) {
      std::cerr << "qlint: error: qlint cxx needs -p BUILD_DIR (with compile_commands.json) or compiler flags "
                   "after `--`\n";
      return cli::kExitError;
    }
    return cli::run_cxx(options);
  }
};

// What a command that reads one model without reporting findings (sim, dump) takes from the
// configuration beside it, as check does: stub classes, operator libraries (when trusted), bits
// and min-sqnr (under the command line's). Public round 23: `sim` ignored a configuration's
// operator-libraries and exited 2 with advice to set them there.
struct ConfigOptions {
  std::string file;
  bool isolated = false;
  bool trust_libraries = false;

  void define(CLI::App* cmd) {
    cmd->add_option("--config", file, "Use this configuration file (.qlint.toml, or pyproject.toml with [tool.qlint])");
    cmd->add_flag("--isolated", isolated, "Ignore all configuration files");
    cmd->add_flag("--trust-config-libraries", trust_libraries,
                  "Load the operator libraries the configuration names (operator-libraries; also "
                  "QLINT_TRUST_CONFIG_LIBRARIES=1)");
  }

  // The command line over the model's configuration; nullopt after printing why it is refused.
  std::optional<cli::CheckOptions> for_model(const std::string& model_file, const ModelOptions& model) const {
    cli::CheckOptions command_line;
    command_line.config_file = file;
    command_line.isolated = isolated;
    command_line.trust_config_libraries = trust_libraries;
    command_line.stubs = model.stubs();
    command_line.operator_libraries = model.operator_libraries;
    try {
      return cli::options_for(model_file, command_line);
    } catch (const cli::ConfigError& e) {
      std::cerr << "qlint: error: " << e.what() << "\n";
    }
    return std::nullopt;
  }
};

struct DumpCommand {
  CLI::App* cmd = nullptr;
  std::string file;
  bool facts = false;
  ModelOptions model;
  ConfigOptions config;

  void define(CLI::App& app) {
    cmd = app.add_subcommand("dump", "Print a model's qlint IR");
    cmd->add_option("file", file, "TorchScript archive or FX export")->required();
    cmd->add_flag("--facts", facts, "Annotate values with what the analyses found (dtype, quant points, domain)");
    model.define(cmd, false);
    config.define(cmd);
  }

  int run() {
    if (int status = apply_limits(model); status != 0) return status;
    std::optional<cli::CheckOptions> configured = config.for_model(file, model);
    if (!configured) return cli::kExitError;
    return cli::run_dump(file, facts, configured->stubs, configured->operator_libraries);
  }
};

struct SimCommand {
  CLI::App* cmd = nullptr;
  CLI::Option* attribution_passes = nullptr;
  CLI::Option* min_sqnr_option = nullptr;
  double min_sqnr = 0;
  CLI::Option* bits = nullptr;
  cli::SimOptions options;
  ModelOptions model;
  ConfigOptions config;
  bool no_color = false;
  int jobs = 0;

  void define(CLI::App& app) {
    cmd = app.add_subcommand("sim", "Calibrate and simulate int16/int8 quantization (runs the model's code)");
    cmd->add_option("file", options.model, "TorchScript archive")->required();
    cmd->add_option("--input", options.inputs.files,
                    "torch.save file of the model's inputs (a tensor, tuple, list or dict); "
                    "repeat for more calibration batches")
        ->allow_extra_args(false);
    cmd->add_option("--random-input", options.inputs.random_shapes,
                    "Seeded random inputs of these shapes, e.g. 1x2x4x4,1x8,4x10:bool (dtypes: float, bool, int64)");
    cmd->add_option("--batches", options.inputs.random_batches, "Random batches with --random-input")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    cmd->add_option("--seed", options.inputs.seed, "Seed for --random-input")->capture_default_str();
    cmd->add_option("-j,--jobs", jobs,
                    "Input batches simulated at once (default: one per core); the results are the same as one "
                    "at a time")
        ->check(CLI::PositiveNumber);
    bits = cmd->add_option("--bits", options.options.bits, "Quantization width (default: the configuration's, else 16)")
               ->check(CLI::IsMember({16, 8}))
               ->capture_default_str();
    cmd->add_flag("--recalibrate", options.options.recalibrate,
                  "Traced QAT models: calibrate instead of using the scales stored in the model");
    cmd->add_option("--save-outputs", options.options.save_outputs,
                    "torch.save the simulated outputs to this file (a list when several batches)");
    cmd->add_option("--save-float-outputs", options.options.save_float_outputs,
                    "torch.save the float outputs (a converted model's float reference) to this file");
    cmd->add_flag("--attribute", options.options.attribute,
                  "Find the quant points that cause each flipped comparison and each output under --min-sqnr "
                  "(about log2(quant points) + 2 more simulated passes each)");
    attribution_passes = add_attribution_passes_option(cmd);
    min_sqnr_option = cmd->add_option("--min-sqnr", min_sqnr,
                                      "With --attribute: the SQNR in dB an output must keep; with --layers: the "
                                      "threshold that marks the first layer under it (default: 40 for int16, "
                                      "20 for int8)");
    cmd->add_flag("--sensitivity", options.options.sensitivity,
                  "A table of each quant point's share of the error: quantized alone, and kept in float (2 more "
                  "simulated passes a quant point)");
    cmd->add_flag("--layers", options.options.layers,
                  "The SQNR of every quant point's and every submodule call's value against float, in execution "
                  "order: where the error explodes");
    cmd->add_option("--layers-memory", options.options.layers_memory_mib,
                    "With --layers: MiB of float values kept until the simulated run compares them (the rest is "
                    "not compared, and the report says how many)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    cmd->add_option("--format", options.format, "Output format")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
    cmd->add_flag("--no-color", no_color, "Accepted for symmetry with check; the report has no colour");
    model.define(cmd, true);
    config.define(cmd);
  }

  int run() {
    if (int status = apply_limits(model); status != 0) return status;
    std::optional<cli::CheckOptions> configured = config.for_model(options.model, model);
    if (!configured) return cli::kExitError;
    options.options.stubs = configured->stubs;
    options.operator_libraries = configured->operator_libraries;
    if (bits->count() == 0) options.options.bits = configured->bits;  // the config's, else 16
    options.options.bits_given = bits->count() > 0;
    if (configured->min_sqnr) options.options.min_sqnr_db = configured->min_sqnr;
    if (min_sqnr_option->count() > 0) options.options.min_sqnr_db = min_sqnr;
    if (attribution_passes->count() > 0) options.options.attribution_passes = attribution_passes->as<int>();
    options.options.threads = jobs > 0 ? jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    // On a terminal only (sim/simulator.cpp), and never beside JSON, which tools read.
    options.options.progress = options.format != "json";
    return cli::run_sim(options);
  }
};

struct ExplainCommand {
  CLI::App* cmd = nullptr;
  std::string rule_id;

  void define(CLI::App& app) {
    cmd = app.add_subcommand("explain", "Explain a rule");
    cmd->add_option("rule", rule_id, "Rule id, e.g. eq-nonzero-const")->required();
  }

  int run() { return cli::run_explain(rule_id); }
};

struct DocsCommand {
  CLI::App* cmd = nullptr;
  std::string directory;

  void define(CLI::App& app) {
    cmd = app.add_subcommand("docs", "Write a Markdown page per rule (docs/rules)");
    cmd->add_option("directory", directory, "Where to write them")->required();
  }

  int run() { return cli::run_docs(directory); }
};

// `qlint server`: the Language Server (docs/server.md), on stdin and stdout until `exit`.
struct ServerCommand {
  CLI::App* cmd = nullptr;
  qlint::server::ServerOptions options;
  ModelOptions model;
  std::string docs_url;

  void define(CLI::App& app) {
    cmd = app.add_subcommand("server", "Run the Language Server (LSP over stdio) for editors");
    cmd->add_flag("--trusted", options.trusted,
                  "The workspace's configuration may run its `export` command on save and simulate its models on "
                  "its `inputs`");
    cmd->add_option("--poll-interval", options.poll_milliseconds, "Milliseconds between scans of the model files")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    cmd->add_option("--docs-url", docs_url,
                    "Base URL of the rule pages (<id>.md is appended); default: the docs installed with qlint");
    model.define(cmd, false);
  }

  int run() {
    try {
      model.apply();
    } catch (const std::invalid_argument& e) {
      std::cerr << "qlint: error: " << e.what() << "\n";
      return cli::kExitError;
    }
    options.command_line.stubs = model.stubs();
    options.command_line.operator_libraries = model.operator_libraries;
    // A trusted workspace may also load the operator libraries its configuration names.
    options.command_line.trust_config_libraries = options.trusted;
    options.docs_base = docs_url.empty() ? qlint::server::default_docs_base() : docs_url;
    options.check = [](const std::string& file, const cli::CheckOptions& o) { return cli::check_model(file, o); };
    qlint::server::serve_stdio(options);  // ends the process
  }
};

// CLI11's help and version requests end the run with their own exit code; other parse
// errors are usage errors.
std::optional<int> parse(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(with_default_command(argc, argv));
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "qlint: error: " << e.what() << " (see qlint --help)\n";
    return cli::kExitError;
  }
  return std::nullopt;
}

}  // namespace

static int run_command(int argc, char** argv) {
  CLI::App app{"qlint: finds quantization hazards in PyTorch models", "qlint"};
  app.set_version_flag("--version", QLINT_VERSION);
  app.require_subcommand(0, 1);

  CheckCommand check;
  CxxCommand cxx;
  DumpCommand dump;
  SimCommand sim;
  ExplainCommand explain;
  DocsCommand docs;
  ServerCommand server;
  check.define(app);
  cxx.define(app);
  dump.define(app);
  sim.define(app);
  CLI::App* rules = app.add_subcommand("rules", "List the rules");
  explain.define(app);
  docs.define(app);
  server.define(app);

  // `qlint cxx FILE -- FLAGS...`: the flags after `--` are the compiler's, as for clang-tidy.
  std::vector<std::string> fixed_args;
  bool use_fixed_args = false;
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--" && argc > 1 && std::string(argv[1]) == "cxx") {
      fixed_args.assign(argv + i + 1, argv + argc);
      use_fixed_args = true;
      argc = i;
      break;
    }
  if (auto early_exit = parse(app, argc, argv)) return *early_exit;
  // Never std::terminate: whatever escapes a command is one line and exit 2.
  try {
    if (*check.cmd) return check.run();
    if (*cxx.cmd) return cxx.run(fixed_args, use_fixed_args);
    if (*dump.cmd) return dump.run();
    if (*sim.cmd) return sim.run();
    if (*rules) return cli::run_rules();
    if (*explain.cmd) return explain.run();
    if (*docs.cmd) return docs.run();
    if (*server.cmd) return server.run();
    std::cout << app.help();
    return cli::kExitClean;
  } catch (const std::exception& e) {
    std::cerr << "qlint: error: internal error: " << qlint::ir::first_line(e.what()) << "\n";
  } catch (...) {
    std::cerr << "qlint: error: internal error: an unknown exception\n";
  }
  return cli::kExitError;
}

// The process ends without running static destructors: what qlint prints is flushed and every
// file it writes is closed by then, and tearing LibTorch's global state down only costs time
// (about 50 ms after a check of a dozen archives, docs/benchmarks.md).
int main(int argc, char** argv) {
  int code = run_command(argc, argv);
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(code);
}
