#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/facts.h"
#include "cli/filter.h"
#include "cli/render.h"
#include "sim/simulator.h"

namespace qlint::cli {

// Exit codes shared by every command.
constexpr int kExitClean = 0;
constexpr int kExitFindings = 1;
constexpr int kExitError = 2;

struct CheckOptions {
  std::vector<std::string> files;  // files and directories (searched for *.pt, *.pth, *.ptl, *.fx.json)
  std::string format = "text";     // text | concise | json | sarif | github
  Selection selection;
  bool exit_zero = false;   // findings do not fail the run
  bool statistics = false;  // a count per rule instead of the findings
  int jobs = 0;             // 0: one per core
  int batch_threads = 1;    // input batches simulated at once (cores left over by parallel models)
  std::string config_file;  // --config: this file for every model
  bool isolated = false;    // --isolated: no configuration files at all
  bool bits_given = false;  // --bits on the command line (over the config's `bits`)
  bool color = false;
  analysis::StubClasses stubs;
  sim::Inputs inputs;  // when given, simulate and attach the evidence
  int bits = 16;
  // --min-sqnr: an output under this SQNR (dB) is a sim-divergence finding; unset: 40 dB for
  // int16, 20 dB for int8, the width the simulation had (sim::default_min_sqnr_db).
  std::optional<double> min_sqnr;
  bool recalibrate = false;
  // --attribution-passes: the passes attribution may run; unset: sim::default_attribution_passes.
  std::optional<int> attribution_passes;
  bool progress = false;  // the simulation's progress line on a terminal (one model at a time)
  bool fix = false;       // rewrite the model
  bool diff = false;      // show what --fix would change, write nothing
  bool unsafe_fixes = false;
  std::string output;                           // -o: write the fixed model here instead of in place
  std::vector<std::string> operator_libraries;  // --load-library, then the config's
  bool trust_config_libraries = false;          // load the libraries a config in the scanned tree names
  std::vector<std::string> config_roots;        // only configurations under these (the server's workspace)
};

int run_check(const CheckOptions& options);

// One model as `qlint check` (or --fix, --diff) handles it, its configuration file over
// `command_line`: the report, or the one-line error that stopped it. Never throws.
struct CheckOutcome {
  std::optional<ModelReport> report;
  std::optional<InputError> error;
  std::string fix_summary;  // --fix / --diff
};
CheckOutcome check_model(const std::string& file, const CheckOptions& command_line);

// The reports in the chosen format on stdout (text and concise end with a summary).
// `notes` (`qlint cxx`'s, else none) go into JSON and SARIF; text shows them on stderr already.
void print_reports(const std::vector<ModelReport>& reports, const std::vector<InputError>& errors,
                   const CheckOptions& options, const std::string& fix_summary,
                   const std::vector<ToolNote>* notes = nullptr);

// The options for one model: the command line over its configuration file. Throws
// ConfigError.
CheckOptions options_for(const std::string& model, const CheckOptions& command_line);
int run_dump(const std::string& file, bool with_facts, const analysis::StubClasses& stubs,
             const std::vector<std::string>& operator_libraries);
struct SimOptions {
  std::string model;
  std::vector<std::string> operator_libraries;
  std::string format = "text";
  sim::Inputs inputs;
  sim::Options options;
};

int run_sim(const SimOptions& options);
int run_rules();
int run_explain(const std::string& rule_id);

// Writes docs/rules: a Markdown page per rule from its documentation, and an index.
int run_docs(const std::string& directory);

}  // namespace qlint::cli
