// qlint's command line: parses arguments and hands over to cli/commands.cpp.
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <algorithm>
#include <set>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/config.h"

namespace {

// `qlint FILE...` means `qlint check FILE...`.
std::vector<std::string> with_default_command(int argc, char** argv) {
  static const std::set<std::string> commands = {"check", "dump", "sim", "rules", "explain", "docs",
                                                 "-h",    "--help", "--version"};
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

}  // namespace

int main(int argc, char** argv) {
  namespace cli = qlint::cli;
  CLI::App app{"qlint: finds quantization hazards in PyTorch models", "qlint"};
  app.set_version_flag("--version", QLINT_VERSION);
  app.require_subcommand(0, 1);

  cli::CheckOptions check;
  bool no_color = false;
  std::vector<std::string> extra_quant_stubs, extra_dequant_stubs, operator_libraries;
  // Options of every command that reads a model: stub classes, custom operator libraries.
  auto add_model_options = [&](CLI::App* cmd) {
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
  };
  auto* check_cmd = app.add_subcommand("check", "Lint TorchScript models and FX exports (the default command)");
  check_cmd->add_option("files", check.files,
                        "TorchScript archives, FX exports (*.json), or directories to search for *.pt, *.pth, *.ptl, *.fx.json; none: nothing to do");
  check_cmd->add_option("--format", check.format, "Output format")
      ->check(CLI::IsMember({"text", "concise", "json", "sarif", "github"}))
      ->capture_default_str();
  check_cmd->add_option("--select", check.selection.select,
                        "Only these rules (comma-separated ids, or ALL; opt-in rules only by name)")
      ->delimiter(',')
      ->allow_extra_args(false);
  check_cmd->add_option("--ignore", check.selection.ignore, "Skip these rules (comma-separated ids)")
      ->delimiter(',')
      ->allow_extra_args(false);
  check_cmd->add_flag("--exit-zero", check.exit_zero, "Exit 0 even when there are findings");
  check_cmd->add_flag("--statistics", check.statistics, "Print how many findings each rule has");
  check_cmd->add_option("-j,--jobs", check.jobs, "Models checked in parallel (default: one per core)")
      ->check(CLI::NonNegativeNumber);
  check_cmd->add_option("--config", check.config_file,
                        "Use this configuration file (.qlint.toml, or pyproject.toml with [tool.qlint])");
  check_cmd->add_flag("--isolated", check.isolated, "Ignore all configuration files");
  check_cmd->add_flag("--no-color", no_color, "Never colour the output");
  check_cmd->add_option("--input", check.inputs.files,
                        "Simulate on these inputs (torch.save files) and attach the evidence: "
                        "scales, what constants become, flipped comparisons; repeatable")
      ->allow_extra_args(false);
  check_cmd->add_option("--random-input", check.inputs.random_shapes,
                        "Simulate on seeded random inputs of these shapes, e.g. 1x2x4x4");
  auto* check_bits = check_cmd->add_option("--bits", check.bits, "Quantization width for the simulation")
                         ->check(CLI::IsMember({16, 8}))
                         ->capture_default_str();
  check_cmd->add_flag("--recalibrate", check.recalibrate,
                      "Traced QAT models: calibrate instead of using the stored scales");
  check_cmd->add_flag("--fix", check.fix,
                      "Rewrite the model in place (safe fixes), verify it and re-check");
  check_cmd->add_flag("--diff", check.diff, "Show what --fix would change (Python suggestion), write nothing");
  check_cmd->add_flag("--unsafe-fixes", check.unsafe_fixes, "Also apply fixes that may change float results");
  check_cmd->add_option("-o,--output", check.output, "With --fix: write the fixed model here instead");
  add_model_options(check_cmd);

  std::string dump_file;
  auto* dump_cmd = app.add_subcommand("dump", "Print a model's qlint IR");
  bool dump_facts = false;
  dump_cmd->add_option("file", dump_file, "TorchScript archive or FX export")->required();
  dump_cmd->add_flag("--facts", dump_facts,
                     "Annotate values with what the analyses found (dtype, quant points, domain)");
  add_model_options(dump_cmd);

  cli::SimOptions sim;
  bool sim_no_color = false;
  auto* sim_cmd = app.add_subcommand("sim", "Calibrate and simulate int16/int8 quantization");
  sim_cmd->add_option("file", sim.model, "TorchScript archive")->required();
  sim_cmd->add_option("--input", sim.inputs.files,
                      "torch.save file of the model's inputs (a tensor, tuple, list or dict); "
                      "repeat for more calibration batches")
      ->allow_extra_args(false);
  sim_cmd->add_option("--random-input", sim.inputs.random_shapes,
                      "Seeded random normal inputs of these shapes, e.g. 1x2x4x4,1x8");
  sim_cmd->add_option("--batches", sim.inputs.random_batches, "Random batches with --random-input")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sim_cmd->add_option("--seed", sim.inputs.seed, "Seed for --random-input")->capture_default_str();
  sim_cmd->add_option("--bits", sim.options.bits, "Quantization width")
      ->check(CLI::IsMember({16, 8}))
      ->capture_default_str();
  sim_cmd->add_flag("--recalibrate", sim.options.recalibrate,
                    "Traced QAT models: calibrate instead of using the scales stored in the model");
  sim_cmd->add_option("--save-outputs", sim.options.save_outputs,
                      "torch.save the simulated outputs to this file (a list when several batches)");
  sim_cmd->add_option("--format", sim.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  sim_cmd->add_flag("--no-color", sim_no_color, "Accepted for symmetry with check; the report has no colour");
  add_model_options(sim_cmd);

  auto* rules_cmd = app.add_subcommand("rules", "List the rules");

  std::string rule_id;
  auto* explain_cmd = app.add_subcommand("explain", "Explain a rule");
  explain_cmd->add_option("rule", rule_id, "Rule id, e.g. eq-nonzero-const")->required();

  std::string docs_dir;
  auto* docs_cmd = app.add_subcommand("docs", "Write a Markdown page per rule (docs/rules)");
  docs_cmd->add_option("directory", docs_dir, "Where to write them")->required();

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

  auto& stubs = check.stubs;
  stubs.quant.insert(stubs.quant.end(), extra_quant_stubs.begin(), extra_quant_stubs.end());
  stubs.dequant.insert(stubs.dequant.end(), extra_dequant_stubs.begin(), extra_dequant_stubs.end());
  if (*check_cmd) {
    check.bits_given = check_bits->count() > 0;
    try {
      cli::validate_selection(check.selection);
      if (!check.config_file.empty()) cli::load_config(check.config_file);
    } catch (const cli::ConfigError& e) {
      std::cerr << "qlint: error: " << e.what() << "\n";
      return cli::kExitError;
    } catch (const std::invalid_argument& e) {
      std::cerr << "qlint: error: " << e.what() << "\n";
      return cli::kExitError;
    }
    if (!check.output.empty() && check.files.size() != 1) {
      std::cerr << "qlint: error: -o/--output takes one model file\n";
      return cli::kExitError;
    }
    if (!check.output.empty()) check.fix = true;
    check.color = color_wanted(no_color);
    check.operator_libraries = operator_libraries;
    return cli::run_check(check);
  }
  if (*dump_cmd) return cli::run_dump(dump_file, dump_facts, stubs, operator_libraries);
  if (*sim_cmd) {
    sim.options.stubs = stubs;
    sim.operator_libraries = operator_libraries;
    sim.options.progress = true;
    return cli::run_sim(sim);
  }
  if (*rules_cmd) return cli::run_rules();
  if (*explain_cmd) return cli::run_explain(rule_id);
  if (*docs_cmd) return cli::run_docs(docs_dir);
  std::cout << app.help();
  return cli::kExitClean;
}
