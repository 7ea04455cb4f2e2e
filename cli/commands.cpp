#include "cli/commands.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "analysis/facts.h"
#include "cli/config.h"
#include "cli/evidence.h"
#include "cli/fix_report.h"
#include "cli/formats.h"
#include "cli/fx_diff.h"
#include "cli/model_files.h"
#include "cli/render.h"
#include "cli/torch_backend.h"
#include "ir/fx/importer.h"
#include "ir/input_file.h"
#include "ir/onnx/importer.h"
#include "ir/text.h"
#include "ir/timings.h"
#include "rewriter/onnx_fix.h"
#include "rewriter/rewriter.h"
#include "rules/registry.h"
#include "sim/report.h"

namespace qlint::cli {

namespace {

void print_input_error(const std::string& file, const std::string& message) {
  std::cerr << "qlint: error: " << ir::printable(ir::display_path(file) + ": " + message, 1000) << "\n";
}

// The boundary of a command on one model: whatever escapes (a LibTorch or nlohmann exception,
// bad_alloc, filesystem_error, anything) is one line and exit 2.
template <typename F>
int guarded(const std::string& file, F&& body) {
  try {
    return body();
  } catch (const ir::ImportError& e) {
    print_input_error(file, e.what());
  } catch (const BackendError& e) {
    print_input_error(file, e.what());
  } catch (const sim::SimError& e) {
    std::cerr << "qlint: error: " << ir::printable(e.what(), 1000) << "\n";
  } catch (const std::bad_alloc&) {
    print_input_error(file, "out of memory while reading it; see the --limit options");
  } catch (const std::exception& e) {
    print_input_error(file, "internal error: " + ir::first_line(e.what()));
  } catch (...) {
    print_input_error(file, "internal error: an unknown exception");
  }
  return kExitError;
}

std::string summary(const std::vector<ModelReport>& reports, bool after_fix) {
  size_t count = 0;
  for (const auto& r : reports) count += r.diagnostics.size();
  // `qlint cxx` reports on C++ source files.
  bool sources = !reports.empty() && std::all_of(reports.begin(), reports.end(), [](const ModelReport& r) {
    return r.model && r.model->language == ir::Language::Cxx;
  });
  std::string noun = sources ? " file" : " model";
  std::ostringstream out;
  out << (after_fix ? "Remaining: " : "Found ") << count << (count == 1 ? " problem" : " problems") << " in "
      << reports.size() << noun << (reports.size() == 1 ? "" : "s") << (after_fix ? " after fixing" : "") << ".\n";
  return out.str();
}

// Custom operator libraries go into LibTorch before any archive that may use them.
void load_operator_libraries(const std::vector<std::string>& libraries) {
  for (const auto& library : libraries) torch_backend().load_library(library);
}

// The model in qlint's IR from whichever front end reads the file: FX exports (*.json), ONNX
// models (*.onnx) or TorchScript archives.
ir::Model import_model(const std::string& file, const std::vector<std::string>& operator_libraries) {
  if (fx::is_fx_export(file)) return fx::import_fx(file);
  if (is_onnx_model(file)) return onnx::import_onnx(file);
  load_operator_libraries(operator_libraries);
  return torch_backend().import_torchscript(file);
}

// FX exports carry the graph, not a runnable model: qlint checks them, but simulating and
// rewriting need the TorchScript archive. ONNX models are rewritten but not yet simulated
// (docs/onnx.md).
void require_torchscript(const std::string& file, const char* what) {
  if (fx::is_fx_export(file))
    throw ir::ImportError(std::string("is an FX export, which qlint checks but cannot ") + what +
                          "; give the TorchScript archive (torch.jit.script(model).save(...)) instead");
  if (is_onnx_model(file))
    throw ir::ImportError(std::string("is an ONNX model, which qlint checks but cannot yet ") + what +
                          "; give the TorchScript archive of the same model (torch.jit.trace(model, x).save(...)) "
                          "for that");
}

}  // namespace

bool wants_simulation(const CheckOptions& options) {
  return !options.inputs.files.empty() || !options.inputs.random_shapes.empty();
}

ModelReport check_one(const std::string& file, const CheckOptions& options) {
  if (!wants_simulation(options)) {
    auto model = std::make_shared<ir::Model>(import_model(file, options.operator_libraries));
    std::optional<ir::PhaseTimer> analysing(ir::Phase::Analysis);
    auto facts = analysis::Facts::compute(*model, options.stubs);
    analysing.reset();
    ir::PhaseTimer checking(ir::Phase::Rules);
    return {file, model, filter_diagnostics(*model, rules::run_all(facts), options.selection), nullptr};
  }
  require_torchscript(file, "simulate (--input, --random-input)");
  sim::Options sim_options;
  sim_options.bits = options.bits;
  sim_options.bits_given = options.bits_given;
  sim_options.recalibrate = options.recalibrate;
  sim_options.stubs = options.stubs;
  sim_options.attribute = true;  // which quant point causes each divergence, for the findings' notes
  sim_options.min_sqnr_db = options.min_sqnr;
  sim_options.attribution_passes = options.attribution_passes;
  sim_options.progress = options.progress;
  sim_options.threads = options.batch_threads;
  load_operator_libraries(options.operator_libraries);
  // One load of the archive for the import and the simulation.
  auto [imported, report] = torch_backend().import_and_simulate(file, options.inputs, sim_options);
  auto model = std::make_shared<ir::Model>(std::move(imported));
  analysis::SimulationEvidence evidence = sim::evidence_from(report);
  evidence.run = sim::simulated_run(report, options.min_sqnr.value_or(sim::default_min_sqnr_db(report.bits)));
  auto facts = analysis::Facts::compute(*model, options.stubs, evidence);
  auto diagnostics = filter_diagnostics(*model, rules::run_all(facts), options.selection);
  attach_evidence(diagnostics, report);
  attach_attribution(diagnostics, report, facts);
  return {file, model, diagnostics, nullptr};
}

// --diff on an FX export: the Python change, computed on the source alone.
ModelReport diff_fx_one(const std::string& file, const CheckOptions& options, std::string& summary) {
  ModelReport report = check_one(file, options);
  rewriter::FixResult result = diff_fx(report, options.unsafe_fixes);
  summary += render_fix_text(file, result, true);
  return {file, report.model, result.remaining, render_fix_json(file, result)};
}

// --fix / --diff: rewrite, then report what remains on the fixed model.
ModelReport fix_one(const std::string& file, const CheckOptions& options, std::string& summary) {
  if (fx::is_fx_export(file) && !options.fix) return diff_fx_one(file, options, summary);
  if (is_onnx_model(file) && wants_simulation(options)) require_torchscript(file, "simulate (--input, --random-input)");
  if (!is_onnx_model(file)) {
    require_torchscript(file, "rewrite (--fix)");
    load_operator_libraries(options.operator_libraries);
  }
  rewriter::FixOptions fix;
  fix.unsafe = options.unsafe_fixes;
  fix.write = !options.diff;
  fix.output = options.output;
  fix.inputs = options.inputs;
  fix.bits = options.bits;
  fix.min_sqnr = options.min_sqnr;
  fix.stubs = options.stubs;
  fix.batch_threads = options.batch_threads;
  fix.filter = [&](const ir::Model& model, std::vector<Diagnostic> found) {
    return filter_diagnostics(model, std::move(found), options.selection);
  };
  rewriter::FixResult result =
      is_onnx_model(file) ? onnx::fix_onnx(file, fix) : torch_backend().fix_model(file, fix, ir::display_path);
  if (const sim::Report* simulated = result.final_simulation()) attach_evidence(result.remaining, *simulated);
  summary += render_fix_text(file, result, options.diff);
  // What remains is about the model written (`-o fixed.pt`), not the one read.
  const std::string& fixed_file = result.written && !result.written_to.empty() ? result.written_to : file;
  return {fixed_file, result.final_model, result.remaining, render_fix_json(file, result)};
}

namespace {

// A model named twice (a file and its directory, say) is checked once, where it first
// appears: twice would repeat its findings, and two parallel --fix runs would race on it.
std::vector<std::string> without_repeats(const std::vector<std::string>& files) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& file : files) {
    std::error_code ec;
    std::string key = std::filesystem::weakly_canonical(file, ec).string();
    if (seen.insert(ec ? file : key).second) out.push_back(file);
  }
  return out;
}

// Files as given; directories searched recursively for models, in sorted order; each once.
std::vector<std::string> expand_inputs(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const auto& path : paths) {
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec)) {
      files.push_back(path);
      continue;
    }
    std::vector<std::string> found;
    for (auto it = std::filesystem::recursive_directory_iterator(path, ec); !ec && it != std::filesystem::end(it);
         it.increment(ec)) {
      if (it->is_regular_file(ec) && is_model_file(it->path())) found.push_back(it->path().string());
    }
    std::sort(found.begin(), found.end());
    // A directory without models is named as an input problem rather than skipped silently.
    if (found.empty()) found.push_back(path);
    files.insert(files.end(), found.begin(), found.end());
  }
  return without_repeats(files);
}

}  // namespace

CheckOutcome check_model(const std::string& file, const CheckOptions& command_line) {
  CheckOutcome out;
  try {
    CheckOptions options = options_for(file, command_line);
    out.report = options.fix || options.diff ? fix_one(file, options, out.fix_summary) : check_one(file, options);
  } catch (const ConfigError& e) {
    out.error = InputError{file, e.what()};
  } catch (const ir::ImportError& e) {
    out.error = InputError{file, ir::display_path(file) + ": " + e.what()};
  } catch (const sim::SimError& e) {
    out.error = InputError{file, e.what()};
  } catch (const rewriter::FixError& e) {
    out.error = InputError{file, e.what()};
  } catch (const BackendError& e) {
    out.error = InputError{file, ir::display_path(file) + ": " + e.what()};
  } catch (const std::bad_alloc&) {
    out.error = InputError{file, ir::display_path(file) + ": out of memory while reading it; see the --limit options"};
  } catch (const std::exception& e) {
    // A bug of qlint's, or a library exception nobody anticipated: this model fails alone,
    // with one line, and the others are still checked.
    out.error = InputError{file, ir::display_path(file) + ": internal error: " + ir::first_line(e.what())};
  } catch (...) {
    out.error = InputError{file, ir::display_path(file) + ": internal error: an unknown exception"};
  }
  // One printable line, whatever the archive put into the message.
  if (out.error) out.error->message = ir::printable(out.error->message, 1000);
  return out;
}

namespace {

// Models are independent, also when simulated or fixed (the simulator's state is per
// thread). Outcomes keep the command line's order whatever finishes first.
std::vector<CheckOutcome> process_all(const std::vector<std::string>& files, const CheckOptions& options) {
  std::vector<CheckOutcome> outcomes(files.size());
  size_t jobs =
      options.jobs > 0 ? static_cast<size_t>(options.jobs) : std::max(1u, std::thread::hardware_concurrency());
  // One model: its input batches are simulated on every core. Several: one thread each, since
  // LibTorch's random generator is one for the process, and a simulation that runs batches at
  // once could not tell another model's draws from its own (sim/simulator.cpp, run_at_once).
  CheckOptions per_model = options;
  per_model.batch_threads = files.size() == 1 ? static_cast<int>(jobs) : 1;
  per_model.progress = options.progress && files.size() == 1;  // one line on the terminal, not several at once
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < files.size(); i = next++) outcomes[i] = check_model(files[i], per_model);
  };
  std::vector<std::thread> threads;
  for (size_t t = 1; t < std::min(jobs, files.size()); ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  return outcomes;
}

std::string statistics(const std::vector<ModelReport>& reports) {
  std::map<std::string, int> counts;
  for (const auto& r : reports)
    for (const auto& d : r.diagnostics) ++counts[d.rule];
  std::ostringstream out;
  for (const auto& [rule, n] : counts) out << std::setw(5) << n << "  " << rule << "\n";
  return out.str();
}

}  // namespace

namespace {

// QLINT_TIMINGS=1: where the command's time went (ir/timings.h), on stderr.
void print_timings() {
  const char* wanted = std::getenv("QLINT_TIMINGS");
  if (wanted == nullptr || *wanted == '\0' || std::string(wanted) == "0") return;
  TorchBackend* plugin = loaded_torch_backend();
  std::cerr << ir::render_timings(ir::phase_totals(), plugin ? &plugin->phase_totals() : nullptr);
}

}  // namespace

int run_check(const CheckOptions& options) {
  std::vector<std::string> files = expand_inputs(options.files);
  if (files.empty()) return kExitClean;  // pre-commit passes no files when none changed
  std::vector<ModelReport> reports;
  std::vector<InputError> errors;
  std::string fix_summary;
  for (auto& outcome : process_all(files, options)) {
    if (outcome.error) {
      if (!reports_input_errors(options.format))
        std::cerr << "qlint: error: " << outcome.error->message << "\n";  // printable: see process()
      errors.push_back(*outcome.error);
      continue;
    }
    fix_summary += outcome.fix_summary;
    reports.push_back(std::move(*outcome.report));
  }
  print_reports(reports, errors, options, fix_summary);
  print_timings();
  if (!errors.empty()) return kExitError;
  if (options.exit_zero) return kExitClean;
  if (options.diff)
    for (const auto& r : reports)
      if (!r.fix.is_null() && !r.fix["applied"].empty()) return kExitFindings;
  // A fix the simulation of the fixed model contradicts is no success, whatever is selected.
  for (const auto& r : reports)
    if (!r.fix.is_null() && !r.fix["verdict"].is_null() && !r.fix["verdict"]["resolved"].get<bool>())
      return kExitFindings;
  for (const auto& r : reports)
    if (!r.diagnostics.empty()) return kExitFindings;
  return kExitClean;
}

namespace {

// "%q: dtype=float32 quant=self.quant domain", one entry per output that has facts.
std::string describe_facts(const analysis::Facts& facts, const ir::Node& node) {
  std::string out;
  if (auto branch = facts.folded_branch(node))
    out = std::string("folded: only the ") + (*branch == 0 ? "first" : "second") + " block runs";
  if (!facts.is_live(node)) return "dead: in a branch that never runs";
  for (const ir::Value* v : node.outputs) {
    std::string entry;
    if (v->type.is_tensor() && facts.dtype(v) != ir::DType::Unknown)
      entry += std::string(" dtype=") + ir::dtype_name(facts.dtype(v));
    for (const auto& source : facts.quant_sources(v)) {
      const analysis::QuantPoint* p = facts.quant_point(source);
      entry += " quant=" + (p ? p->display : source);
    }
    if (facts.in_quantized_domain(v)) entry += " in-domain";
    if (facts.from_input(v)) entry += " from-input";
    if (!entry.empty()) out += (out.empty() ? "%" : "; %") + v->name + ":" + entry;
  }
  return out;
}

}  // namespace

void print_reports(const std::vector<ModelReport>& reports, const std::vector<InputError>& errors,
                   const CheckOptions& options, const std::string& fix_summary, const std::vector<ToolNote>* notes) {
  ir::PhaseTimer printing(ir::Phase::Output);
  const std::string& f = options.format;
  if (f == "json") {
    std::cout << render_json(reports, errors, notes).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
              << "\n";
  } else if (f == "sarif") {
    std::cout << render_sarif(reports, errors, notes ? *notes : std::vector<ToolNote>{})
                     .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
              << "\n";
  } else if (f == "github") {
    std::cout << render_github(reports, errors);
  } else if (f == "gitlab") {
    std::error_code ec;
    const std::string cwd = std::filesystem::current_path(ec).string();
    std::cout << render_gitlab(reports, errors, ec ? std::string() : cwd)
                     .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
              << "\n";
  } else if (options.statistics) {
    std::cout << fix_summary << statistics(reports);
  } else {
    std::cout << fix_summary << (f == "concise" ? render_concise(reports) : render_text(reports, options.color));
    if (!reports.empty()) std::cout << summary(reports, options.fix || options.diff);
  }
}

int run_dump(const std::string& file, bool with_facts, const analysis::StubClasses& stubs,
             const std::vector<std::string>& operator_libraries) {
  return guarded(file, [&] {
    ir::Model model = import_model(file, operator_libraries);
    std::string text;
    if (!with_facts) {
      text = ir::print_model(model);
    } else {
      auto facts = analysis::Facts::compute(model, stubs);
      text = ir::print_model(model, [&](const ir::Node& n) { return describe_facts(facts, n); });
    }
    std::cout << text;
    return kExitClean;
  });
}

int run_sim(const SimOptions& options) {
  return guarded(options.model, [&] {
    load_operator_libraries(options.operator_libraries);
    sim::Report report = torch_backend().simulate(options.model, options.inputs, options.options);
    if (options.format == "json")
      std::cout << sim::render_json(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    else
      std::cout << sim::render_text(report);
    return kExitClean;
  });
}

}  // namespace qlint::cli
