#include "cli/commands.h"

#include <iomanip>
#include <iostream>
#include <sstream>

#include "analysis/facts.h"
#include "cli/evidence.h"
#include "cli/fix_report.h"
#include "rewriter/rewriter.h"
#include "cli/render.h"
#include "ir/text.h"
#include "ir/torchscript/importer.h"
#include "rules/registry.h"
#include "sim/report.h"

namespace qlint::cli {

namespace {

void print_input_error(const std::string& file, const std::string& message) {
  std::cerr << "qlint: error: " << display_path(file) << ": " << message << "\n";
}

std::string summary(const std::vector<ModelReport>& reports, bool after_fix) {
  size_t count = 0;
  for (const auto& r : reports) count += r.diagnostics.size();
  std::ostringstream out;
  out << (after_fix ? "Remaining: " : "Found ") << count << (count == 1 ? " problem" : " problems") << " in "
      << reports.size() << (reports.size() == 1 ? " model" : " models") << (after_fix ? " after fixing" : "") << ".\n";
  return out.str();
}

std::string indent(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) out += "  " + line + "\n";
  return out;
}

}  // namespace

bool wants_simulation(const CheckOptions& options) {
  return !options.inputs.files.empty() || !options.inputs.random_shapes.empty();
}

ModelReport check_one(const std::string& file, const CheckOptions& options) {
  auto model = std::make_shared<ir::Model>(torchscript::import_torchscript(file));
  if (!wants_simulation(options)) {
    auto facts = analysis::Facts::compute(*model, options.stubs);
    return {file, model, rules::run_all(facts)};
  }
  sim::Options sim_options;
  sim_options.bits = options.bits;
  sim_options.recalibrate = options.recalibrate;
  sim_options.stubs = options.stubs;
  sim::Report report = sim::simulate(file, options.inputs, sim_options);
  auto facts = analysis::Facts::compute(*model, options.stubs, sim::evidence_from(report));
  auto diagnostics = rules::run_all(facts);
  attach_evidence(diagnostics, report);
  return {file, model, diagnostics};
}

// --fix / --diff: rewrite, then report what remains on the fixed model.
ModelReport fix_one(const std::string& file, const CheckOptions& options, std::string& summary) {
  rewriter::FixOptions fix;
  fix.unsafe = options.unsafe_fixes;
  fix.write = !options.diff;
  fix.output = options.output;
  fix.inputs = options.inputs;
  fix.bits = options.bits;
  fix.stubs = options.stubs;
  rewriter::FixResult result = rewriter::fix_model(file, fix, display_path);
  summary += render_fix_text(file, result, options.diff);
  return {file, result.final_model, result.remaining, render_fix_json(file, result)};
}

int run_check(const CheckOptions& options) {
  std::vector<ModelReport> reports;
  std::vector<InputError> errors;
  std::string fix_summary;
  for (const auto& file : options.files) {
    try {
      if (options.fix || options.diff) {
        reports.push_back(fix_one(file, options, fix_summary));
        continue;
      }
      reports.push_back(check_one(file, options));
    } catch (const torchscript::ImportError& e) {
      errors.push_back({file, e.what()});
      if (options.format != "json") print_input_error(file, e.what());
    } catch (const sim::SimError& e) {
      errors.push_back({file, e.what()});
      if (options.format != "json") std::cerr << "qlint: error: " << e.what() << "\n";
    } catch (const rewriter::FixError& e) {
      errors.push_back({file, e.what()});
      if (options.format != "json") std::cerr << "qlint: error: " << e.what() << "\n";
    }
  }
  if (options.format == "json") {
    std::cout << render_json(reports, errors).dump(2) << "\n";
  } else {
    std::cout << fix_summary << render_text(reports, options.color);
    if (!reports.empty()) std::cout << summary(reports, options.fix || options.diff);
  }
  if (!errors.empty()) return kExitError;
  if (options.diff)
    for (const auto& r : reports)
      if (!r.fix.is_null() && !r.fix["applied"].empty()) return kExitFindings;
  for (const auto& r : reports)
    if (!r.diagnostics.empty()) return kExitFindings;
  return kExitClean;
}

namespace {

// "%q: dtype=float32 quant=self.quant domain", one entry per output that has facts.
std::string describe_facts(const analysis::Facts& facts, const ir::Node& node) {
  std::string out;
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

int run_dump(const std::string& file, bool with_facts, const analysis::StubClasses& stubs) {
  try {
    ir::Model model = torchscript::import_torchscript(file);
    if (!with_facts) {
      std::cout << ir::print_model(model);
      return kExitClean;
    }
    auto facts = analysis::Facts::compute(model, stubs);
    std::cout << ir::print_model(model, [&](const ir::Node& n) { return describe_facts(facts, n); });
    return kExitClean;
  } catch (const torchscript::ImportError& e) {
    print_input_error(file, e.what());
    return kExitError;
  }
}

int run_sim(const SimOptions& options) {
  try {
    sim::Report report = sim::simulate(options.model, options.inputs, options.options);
    if (options.format == "json") std::cout << sim::render_json(report).dump(2) << "\n";
    else std::cout << sim::render_text(report);
    return kExitClean;
  } catch (const sim::SimError& e) {
    std::cerr << "qlint: error: " << e.what() << "\n";
    return kExitError;
  }
}

int run_rules() {
  for (const auto& rule : rules::all_rules())
    std::cout << std::left << std::setw(20) << rule.id << std::setw(9) << severity_name(rule.severity)
              << rule.summary << "\n";
  return kExitClean;
}

int run_explain(const std::string& rule_id) {
  const rules::Rule* rule = rules::find_rule(rule_id);
  if (rule == nullptr) {
    std::cerr << "qlint: error: unknown rule '" << rule_id << "'; `qlint rules` lists them\n";
    return kExitError;
  }
  std::cout << rule->id << " (" << severity_name(rule->severity) << "): " << rule->summary << "\n\n"
            << "What it finds\n" << indent(rule->doc.what) << "\n"
            << "Why it breaks\n" << indent(rule->doc.why) << "\n"
            << "Example\n" << indent(rule->doc.example) << "\n"
            << "Fix\n" << indent(rule->doc.fix) << "\n"
            << "Fix safety\n" << indent(rule->doc.fix_safety);
  return kExitClean;
}

}  // namespace qlint::cli
