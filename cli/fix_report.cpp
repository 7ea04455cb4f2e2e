#include "cli/fix_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "analysis/comparisons.h"
#include "cli/render.h"
#include "rewriter/never_worse.h"
#include "rules/support.h"
#include "sim/report.h"

namespace qlint::cli {

namespace {

// Differing and compared elements of the comparisons, or of the integer results (argmax, topk,
// casts: sim::ComparisonResult::integer_result).
std::pair<int64_t, int64_t> flips(const sim::Report& r, bool integer_results = false) {
  int64_t differing = 0, elements = 0;
  for (const auto& c : r.comparisons) {
    if (c.integer_result != integer_results) continue;
    differing += c.differing;
    elements += c.elements;
  }
  return {differing, elements};
}

// Whether two magnitudes agree to float32's precision.
bool same_magnitude(double a, double b) { return std::abs(a - b) <= 1e-6 * std::max(std::abs(a), std::abs(b)); }

void verification_text(std::ostream& out, const rewriter::FixResult& r) {
  const rewriter::Verification& v = r.verification;
  if (r.text_only) {
    out << "Not verified: an FX export holds no model to run. Apply the change to the Python source and export "
           "again, or give qlint the TorchScript archive to rewrite and verify.\n";
    return;
  }
  if (!v.ran && !r.verification_note.empty()) {
    out << r.verification_note << "\n";
    return;
  }
  if (!v.ran) {
    out << "Not verified by simulation: give --input FILE or --random-input SHAPES to compare float and int"
        << "\n(parameters and buffers are unchanged; every rewrite keeps float results by construction).\n";
    return;
  }
  const sim::Report& before = v.before;
  out << "Verified on " << before.batches << (before.random_inputs ? " seeded random" : "")
      << (before.batches == 1 ? " input batch" : " input batches") << ": float outputs bit-identical, parameters and "
      << "buffers unchanged. " << sim::width_name(before) << " simulation, before -> after:\n";
  // An output whose shape the quantized run changed has no SQNR: it says so instead. A mask or
  // indices are judged by how many of their values differ, not by an SQNR.
  auto judged = [](const sim::OutputResult& o, bool with_sqnr_word, bool with_magnitude = false) {
    if (!o.shape_difference.empty())
      return "shape differs (" + o.shape_difference +
             (with_magnitude ? "; values up to " + rules::format_number(o.simulated_magnitude) + ", float's up to " +
                                   rules::format_number(o.float_magnitude)
                             : "") +
             ")";
    if (o.integer) return std::to_string(o.differing_elements) + " differ";
    return (with_sqnr_word ? "SQNR " : "") + sim::format_db(o.sqnr_db);
  };
  for (size_t i = 0; i < before.outputs.size() && i < v.after.outputs.size(); ++i) {
    const sim::OutputResult &was = before.outputs[i], &is = v.after.outputs[i];
    const bool reshaped = !was.shape_difference.empty() || !is.shape_difference.empty();
    out << "  " << was.name << (was.integer ? " (bool or integer values)" : "") << ": ";
    if (reshaped || was.integer) {
      // Both reshaped: the largest values still show what a fix changed (box corners no longer
      // clipped), which the shapes cannot.
      const bool magnitude = !was.shape_difference.empty() && !is.shape_difference.empty() &&
                             !same_magnitude(was.simulated_magnitude, is.simulated_magnitude);
      out << judged(was, reshaped, magnitude) << " -> " << judged(is, reshaped, magnitude) << "\n";
      continue;
    }
    const sim::SqnrChange sqnr = sim::sqnr_change(was, is);
    const std::string kept = rewriter::why_a_lower_sqnr_is_kept(sqnr, before.bits);
    out << "SQNR " << sim::format_db(sqnr.was_db) << " -> " << sim::format_db(sqnr.is_db)
        << (sqnr.footing.empty() ? "" : " (" + sqnr.footing + ")")
        << (kept.empty() ? "" : " (lower, kept: " + kept + ")") << "\n";
  }
  auto [b_diff, b_all] = flips(before);
  auto [a_diff, a_all] = flips(v.after);
  if (b_all || a_all)
    out << "  comparison results flipped: " << b_diff << " of " << b_all << " -> " << a_diff << " of " << a_all << "\n";
  // A float twin recomputes what it copies (a comparison on the way, a layer called again on the
  // float input) at the same lines: the fixed model makes more comparisons there.
  if (a_all > b_all)
    out << "    (the fixed model compares " << a_all - b_all
        << " results more at these lines: its float twins recompute them from float values)\n";
  auto [bi_diff, bi_all] = flips(before, /*integer_results=*/true);
  auto [ai_diff, ai_all] = flips(v.after, /*integer_results=*/true);
  if (bi_all || ai_all)
    out << "  integer results changed (argmax, topk, NMS, casts): " << bi_diff << " of " << bi_all << " -> " << ai_diff
        << " of " << ai_all << "\n";
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.8g", v);
  return buf;
}

// "new fake quant `self.mask_fake_quant` on `mask`: scale 1, zero point 0, range -32768..32767
// (exact for a 0/1 mask)"; a value without a name is the operand of the line.
std::string scale_text(const rewriter::NewScale& s) {
  std::string what = "new fake quant";
  // The rewrite's description names it as the code at its line does (`self.emb_output_fake_quant`
  // in a child's forward); here it is the module's path in the archive (`child.emb_output_fake_quant`).
  if (!s.module.empty())
    what += s.module.find('.') == std::string::npos ? " `self." + s.module + "`" : " `" + s.module + "`";
  if (s.module.empty() || s.value != "operand") what += " on `" + s.value + "`";
  return what + ": scale " + number(s.scale) + ", zero point " + std::to_string(s.zero_point) + ", range " +
         std::to_string(s.quant_min) + ".." + std::to_string(s.quant_max) + " (" + s.source + ")";
}

// A rewrite's new fake quants, one line each; past a few (one per copy of a loop the trace
// unrolled: public round 28 listed 63 lines for one source line), the rest in one line with the
// span of their scales. The JSON lists every one.
void scales_text(std::ostream& out, const std::vector<rewriter::NewScale>& scales) {
  constexpr size_t kListed = 3;
  const size_t listed = scales.size() <= kListed + 1 ? scales.size() : kListed;
  for (size_t i = 0; i < listed; ++i) out << "    " << scale_text(scales[i]) << "\n";
  if (listed == scales.size()) return;
  const auto [least, most] = std::minmax_element(scales.begin() + static_cast<std::ptrdiff_t>(listed), scales.end(),
                                                 [](const auto& a, const auto& b) { return a.scale < b.scale; });
  out << "    and " << scales.size() - listed << " more new fake quants, scales " << number(least->scale) << " to "
      << number(most->scale) << " (`--format json` lists each)\n";
}

nlohmann::json scales_json(const std::vector<rewriter::NewScale>& scales) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : scales)
    out.push_back({{"value", s.value},
                   {"module", s.module.empty() ? nlohmann::json() : nlohmann::json(s.module)},
                   {"scale", s.scale},
                   {"zero_point", s.zero_point},
                   {"quant_min", s.quant_min},
                   {"quant_max", s.quant_max},
                   {"source", s.source}});
  return out;
}

nlohmann::json loc_json(const ir::SourceLoc& loc) {
  if (!loc.known()) return nullptr;
  return {{"file", ir::display_path(loc.file)}, {"line", loc.line}, {"column", loc.column}};
}

std::string count(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// What a simulation failure is about: "comparison", "integer_result" (an argmax, a topk, a cast
// whose integer results changed) or "output".
std::string failure_kind(const Diagnostic& d) {
  if (d.evidence_node == nullptr) return "output";
  return analysis::is_comparison_op(d.evidence_node->kind) ? "comparison" : "integer_result";
}

// Said first when the simulation of the model as --fix leaves it still fails: what fails, at
// the user's Python lines, so a summary can never read as a success it is not.
void verdict_text(std::ostream& out, const std::string& model, const rewriter::FixResult& r) {
  if (r.simulation_failures.empty()) return;
  auto failures_of = [&](const char* kind) {
    return static_cast<size_t>(std::count_if(r.simulation_failures.begin(), r.simulation_failures.end(),
                                             [&](const Diagnostic& d) { return failure_kind(d) == kind; }));
  };
  const size_t comparisons = failures_of("comparison"), integer_results = failures_of("integer_result");
  const size_t decisions = comparisons + integer_results;
  const sim::Report& simulated = *r.final_simulation();
  size_t reshaped = std::count_if(simulated.outputs.begin(), simulated.outputs.end(),
                                  [](const sim::OutputResult& o) { return !o.shape_difference.empty(); });
  size_t outputs =
      r.simulation_failures.size() - decisions - std::min(reshaped, r.simulation_failures.size() - decisions);
  // A mask or indices fails by its values, not an SQNR; it is a failure of its own only where the
  // simulation saw no decision change (rules/sim_divergence.cpp).
  const size_t integer_outputs =
      decisions > 0
          ? 0
          : std::min(outputs, static_cast<size_t>(std::count_if(
                                  simulated.outputs.begin(), simulated.outputs.end(), [](const sim::OutputResult& o) {
                                    return o.integer && o.shape_difference.empty() && o.differing_elements > 0;
                                  })));
  outputs -= integer_outputs;
  std::vector<std::string> what;
  if (comparisons) what.push_back("flips " + count(comparisons, "comparison", "comparisons"));
  if (integer_results) what.push_back("changes the integer results of " + count(integer_results, "op", "ops"));
  if (reshaped) what.push_back("changes the shape of " + count(reshaped, "output", "outputs"));
  if (integer_outputs)
    what.push_back("changes the values of " +
                   count(integer_outputs, "bool or integer output", "bool or integer outputs"));
  if (outputs)
    what.push_back("keeps " + count(outputs, "output", "outputs") + " under " + rules::format_number(r.min_sqnr_db) +
                   " dB SQNR");
  out << "Not resolved: the " << sim::width_name(simulated) << " simulation of the "
      << (r.applied.empty() ? "model" : "fixed model") << " still ";
  for (size_t i = 0; i < what.size(); ++i) out << (i == 0 ? "" : i + 1 == what.size() ? " and " : ", ") << what[i];
  out << ":\n";
  for (const auto& d : r.simulation_failures)
    out << "  " << (d.loc.known() ? ir::display_location(d.loc) : ir::display_path(model)) << ": " << d.message << "\n";
}

nlohmann::json verdict_json(const rewriter::FixResult& r) {
  nlohmann::json failures = nlohmann::json::array();
  for (const auto& d : r.simulation_failures)
    failures.push_back({{"kind", failure_kind(d)}, {"location", loc_json(d.loc)}, {"message", d.message}});
  const sim::Report* simulated = r.final_simulation();
  return {{"resolved", r.resolved()},
          {"simulated", simulated != nullptr},
          {"min_sqnr_db", simulated != nullptr ? nlohmann::json(r.min_sqnr_db) : nlohmann::json()},
          {"static_remaining", r.static_remaining()},
          {"simulation_failures", failures}};
}

// "Resolved 3 of 3 problems in model.pt with 2 rewrites:", and the rewrites. While the simulation
// still fails, the rewrites resolved nothing the user can rely on, and the line says only what
// they did.
void applied_text(std::ostream& out, const std::string& model, const rewriter::FixResult& r, bool diff_only) {
  std::string rewrites = count(r.applied.size(), "rewrite", "rewrites");
  std::string problems =
      std::to_string(r.problems_resolved()) + " of " + count(r.problems_found(), "problem", "problems");
  if (r.simulation_failures.empty())
    out << (diff_only ? "Would resolve " : "Resolved ") << problems << " in " << ir::display_path(model) << " with "
        << rewrites << ":\n";
  else
    out << (diff_only ? "Would apply " : "Applied ") << rewrites << " in " << ir::display_path(model) << " for "
        << problems << ":\n";
  for (const auto& f : r.applied) {
    out << "  " << ir::display_location(f.loc) << ": " << f.rule << ": " << f.description << "\n";
    scales_text(out, f.scales);
  }
}

nlohmann::json held_back_json(const std::vector<HeldBackFix>& held) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& h : held)
    out.push_back({{"rule", h.rule}, {"location", loc_json(h.loc)}, {"description", h.description}});
  return out;
}

nlohmann::json dropped_json(const std::vector<rewriter::DroppedFix>& dropped) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& d : dropped)
    out.push_back({{"rule", d.rule},
                   {"location", loc_json(d.loc)},
                   {"description", d.description},
                   {"why", d.why},
                   {"gain", d.gain.empty() ? nlohmann::json() : nlohmann::json(d.gain)}});
  return out;
}

bool any_new_scale(const rewriter::FixResult& r) {
  return std::any_of(r.applied.begin(), r.applied.end(), [](const auto& f) { return !f.scales.empty(); });
}

// A new fake quant calibrated on the inputs the verification then ran: its scale fits those
// batches as no stored scale does, which flatters the figures (public round 19: a reused stub
// split "5 -> 3 flips", where the one stub at the same fitted scale gave 2).
bool any_scale_fitted_on_the_inputs(const rewriter::FixResult& r) {
  return std::any_of(r.applied.begin(), r.applied.end(), [](const auto& f) {
    return std::any_of(f.scales.begin(), f.scales.end(),
                       [](const auto& s) { return s.source.rfind("calibrated on", 0) == 0; });
  });
}

}  // namespace

std::string render_fix_text(const std::string& model, const rewriter::FixResult& r, bool diff_only) {
  std::ostringstream out;
  if (diff_only && !r.python_diff.empty()) out << r.python_diff;
  verdict_text(out, model, r);
  for (const auto& note : r.python_notes) out << "note: " << note << "\n";
  if (r.applied.empty()) {
    // "Nothing to fix" only when nothing was found: findings without a fix say why in their notes.
    const bool found = r.problems_found() > 0 || !r.remaining.empty();
    const char* what = !r.dropped.empty()     ? "No fix kept in "
                       : !r.held_back.empty() ? "No safe fix in "
                       : found                ? "No automatic fix for the problems in "
                                              : "Nothing to fix in ";
    out << what << ir::display_path(model) << ".\n";
  } else {
    applied_text(out, model, r, diff_only);
    verification_text(out, r);
  }
  if (r.stored_scales && !r.applied.empty())
    out << "This traced QAT model keeps the FakeQuantize scales calibrated on the graph before the fix"
        << (any_scale_fitted_on_the_inputs(r)
                ? " (new fake quants have the scales listed above; those calibrated on the inputs fit the very batches "
                  "the verification ran, which favours them in its figures)"
            : any_new_scale(r) ? " (new fake quants have the scales listed above)"
                               : "")
        << "; re-run QAT calibration on the fixed Python model (or simulate with `qlint sim --recalibrate`) to get "
           "scales that fit it.\n";
  for (const auto& s : r.skipped) out << "Not fixed: " << s << "\n";
  if (!r.dropped.empty()) {
    const bool failed = std::any_of(r.dropped.begin(), r.dropped.end(), [](const auto& d) { return d.failed; });
    out << "Dropped " << count(r.dropped.size(), "rewrite", "rewrites")
        << (failed ? " that made the fixed model fail or the simulation worse than before"
                   : " that made the simulation worse than before")
        << " (each was tried on top of the ones kept):\n";
    bool traded = false;
    for (const auto& d : r.dropped) {
      out << "  " << ir::display_location(d.loc) << ": " << d.rule << ": " << d.description << ": " << d.why << "\n";
      if (!d.gain.empty()) out << "    though it also did better: " << d.gain << "\n";
      traded = traded || !d.gain.empty();
    }
    if (traded)
      out << "A rewrite that does better in one place and worse in another is a trade --fix does not make for you; "
             "make it in the Python model if its gain matters more.\n";
  }
  if (!r.held_back.empty()) {
    out << count(r.held_back.size(), "fix needs", "fixes need") << " --unsafe-fixes:\n";
    for (const auto& h : r.held_back)
      out << "  " << ir::display_location(h.loc) << ": " << h.rule << ": " << h.description << "\n";
  }
  if (r.written)
    out << "Wrote " << ir::display_path(r.written_to) << ".\n";
  else if (diff_only && !r.applied.empty())
    out << "Nothing was written (--diff).\n";
  else if (!diff_only && r.applied.empty())
    out << "Nothing was written.\n";  // with -o too: no copy of an unchanged model
  return out.str();
}

nlohmann::json render_fix_json(const std::string& model, const rewriter::FixResult& r) {
  nlohmann::json applied = nlohmann::json::array();
  for (const auto& f : r.applied)
    applied.push_back({{"rule", f.rule},
                       {"description", f.description},
                       {"location", loc_json(f.loc)},
                       {"function", f.function},
                       {"scales", scales_json(f.scales)}});
  nlohmann::json verification = {{"simulated", r.verification.ran},
                                 // Unknown without a run: null, not false.
                                 {"float_identical", r.verification.ran ? nlohmann::json(r.verification.float_identical)
                                                                        : nlohmann::json(nullptr)},
                                 {"parameters_identical", r.verification.parameters_identical}};
  if (r.verification.ran) {
    verification["before"] = sim::render_json(r.verification.before);
    verification["after"] = sim::render_json(r.verification.after);
  }
  return {{"model", ir::display_path(model)},
          {"found", r.problems_found()},
          {"resolved", r.problems_resolved()},
          {"remaining", r.remaining.size()},
          {"applied", applied},
          {"unsafe_held_back", r.held_back.size()},
          {"held_back", held_back_json(r.held_back)},
          {"skipped", r.skipped},
          {"dropped", dropped_json(r.dropped)},
          {"rewritten_functions", r.rewritten_functions},
          {"python_diff", r.python_diff},
          {"python_notes", r.python_notes},
          {"stored_scales", r.stored_scales},
          {"text_only", r.text_only},
          {"verification", r.applied.empty() ? nlohmann::json() : verification},
          {"verdict", verdict_json(r)},
          {"written_to", r.written ? nlohmann::json(ir::display_path(r.written_to)) : nlohmann::json()}};
}

}  // namespace qlint::cli
