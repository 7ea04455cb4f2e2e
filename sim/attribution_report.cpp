#include "sim/attribution_report.h"

#include <cmath>
#include <cstdio>

#include "ir/display.h"
#include "sim/attribution.h"
#include "sim/report.h"

namespace qlint::sim {

namespace {

nlohmann::json sites_json(const QuantPointResult* p) {
  return p == nullptr ? nlohmann::json::array() : point_sites_json(*p);
}

bool is_comparison(const Attribution& a) { return a.divergence.kind == Divergence::Kind::Comparison; }

std::string output_name(size_t index) { return "output " + std::to_string(index); }

// A comparison's measure: "4 of 8 results differ"; an output's: "1.3 dB".
std::string measured(const Attribution& a, double m) {
  if (!is_comparison(a)) return format_db(m);
  auto n = static_cast<int64_t>(m);
  if (n == 0) return "none of " + std::to_string(a.elements) + " results differ";
  return std::to_string(n) + " of " + std::to_string(a.elements) + " results differ";
}

// A pass's measure as a clause: "4 of 8 results differ", "output 1 keeps 3.5 dB". An output
// measured -inf came out with another shape than float's (rows a decision let through), or the
// pass failed: no SQNR to state (public round 19: "output 1 keeps -inf dB").
std::string stated(const Attribution& a, double m) {
  if (is_comparison(a)) return measured(a, m);
  const std::string output = output_name(a.divergence.output);
  if (std::isinf(m) && m < 0) return output + " has another shape than float's (or none)";
  // A bool or integer output is judged by its values, as README states: no SQNR of indices or
  // box corners (public round 20: "output 2 keeps 7.8 dB" for pixel coordinates cast to int).
  if (a.divergence.integer_values)
    return output + (std::isinf(m) ? " is as in float" : " has float's shape, with values that differ");
  return output + " keeps " + format_db(m);
}

// "model.py:14:12: aten::eq (4 of 8 results differ)", "output 0 (1.3 dB SQNR)".
std::string divergence_title(const Attribution& a) {
  if (is_comparison(a))
    return ir::display_location(a.divergence.loc) + ": " + a.divergence.op + " (" + measured(a, a.measure) + ")";
  if (std::isinf(a.measure) && a.measure < 0) return output_name(a.divergence.output) + " (another shape than float's)";
  return output_name(a.divergence.output) + " (" + format_db(a.measure) + " SQNR)";
}

}  // namespace

std::string point_sites_text(const QuantPointResult& p) {
  std::string out;
  for (const auto& loc : p.sites)
    if (loc.known()) out += (out.empty() ? "" : ", ") + ir::display_location(loc);
  return out;
}

nlohmann::json point_sites_json(const QuantPointResult& p) {
  nlohmann::json sites = nlohmann::json::array();
  for (const auto& loc : p.sites)
    if (loc.known())
      sites.push_back({{"file", ir::display_path(loc.file)}, {"line", loc.line}, {"column", loc.column}});
  return sites;
}

const QuantPointResult* find_point(const Report& report, const std::string& path) {
  for (const auto& p : report.points)
    if (p.path == path) return &p;
  return nullptr;
}

namespace {

// A stored scale (a traced QAT model's, calibrated before) whose grid ends short of the values
// the inputs give: they clip there, which no new quant point cures; a new calibration does.
std::string clipping(const QuantPointResult& p) {
  if (!p.stored || !(p.scale > 0) || p.quant_max <= p.quant_min) return "";
  const double low = static_cast<double>(p.quant_min - p.zero_point) * p.scale;
  const double high = static_cast<double>(p.quant_max - p.zero_point) * p.scale;
  // A value half a step beyond the grid's end is rounded there, no worse than any other value: a
  // symmetric MinMax observer puts the calibrated max exactly there (scale = max / 127.5, in
  // float32). A moving-average observer (the default QAT one) stays a little inside the largest
  // value of its calibration batches; up to a whole step past the end, the value loses at most
  // a step, which is no cause worth a recalibration (public round 11: 0.6 of a step on PCT).
  const double reach = p.scale * (1 + 1e-3);
  if (p.min >= low - reach && p.max <= high + reach) return "";
  const std::string covers = " (its stored scale covers only [" + short_number(low) + ", " + short_number(high) +
                             "]: the values beyond clip; ";
  // One quant point for several tensors: its running range averages theirs, which another
  // calibration averages again (public round 12's HiVT: [-12, 13.3] for values up to 82).
  if (p.sites.size() > 1)
    return covers + "it quantizes " + std::to_string(p.sites.size()) +
           " tensors, whose ranges its calibration mixes: give each its own quant point)";
  return covers + "calibrate again on such inputs, or simulate with `--recalibrate`)";
}

}  // namespace

std::string describe_point(const Report& report, const std::string& path) {
  std::string out = "`" + analysis::module_quant_point_display(path) + "`";
  const QuantPointResult* p = find_point(report, path);
  if (p == nullptr) return out;
  if (std::string sites = point_sites_text(*p); !sites.empty()) out += " (" + sites + ")";
  return out + ", scale " + short_number(p->scale) + " for values in [" + short_number(p->min) + ", " +
         short_number(p->max) + "]" + clipping(*p);
}

std::string describe_cause(const Attribution& a, const Cause& c) {
  std::string in_float = "it";
  for (size_t i = 0; i < c.also_in_float.size(); ++i)
    in_float += std::string(i + 1 == c.also_in_float.size() ? " and " : ", ") + "`" +
                analysis::module_quant_point_display(c.also_in_float[i]) + "`";
  std::string text = "with only it quantized, " + stated(a, c.alone) + "; with " + in_float +
                     " in float and the other quant points quantized, " + stated(a, c.without);
  // Needed but not enough: keeping it in float cures the divergence, quantizing it alone does
  // not make it (two "none differ" read as a contradiction without this).
  if (c.cures && !c.reproduces) text += ": it takes part only together with the rounding of other quant points";
  return text;
}

std::vector<std::string> attribution_notes(const Report& report, const Attribution& a) {
  std::vector<std::string> notes;
  if (a.weights_alone) {
    // Measures only: rounding errors also cancel, so a rewrite of some activation quant points
    // can still cure it (public round 19: 1 flip with the weights alone, 2 with everything, 0
    // once `--fix` took one comparison's operand from float).
    std::string note =
        "caused mostly by the weights' fake quantization: with every activation quant point kept in float, " +
        stated(a, a.weights_measure) + " (with all quantized, " + stated(a, a.measure) + ")";
    if (a.activations_alone)
      note += "; the activations' quant points alone diverge too: with the weights in float, " +
              stated(a, *a.activations_alone);
    notes.push_back(note);
    return notes;
  }
  bool cured = false;
  for (const auto& c : a.causes) {
    notes.push_back(std::string(c.reproduces ? "caused by " : "partly caused by ") + describe_point(report, c.point) +
                    ": " + describe_cause(a, c));
    cured = cured || c.cures;
  }
  if (a.search_cut)
    notes.push_back("the search for more causes stopped at its budget of " + std::to_string(report.attribution_budget) +
                    " simulated passes: other quant points may take part (`--attribution-passes` searches further)");
  else if (!a.causes.empty() && !cured)
    notes.push_back("no single quant point explains it: the rounding of several quant points adds up");
  if (a.weights_part)
    notes.push_back("the weights' fake quantization alone, with every activation quant point in float: " +
                    stated(a, *a.weights_part) + "; that part comes from the weights' rounding");
  return notes;
}

const Attribution* find_attribution(const Report& report, const std::string& comparison_key) {
  for (const auto& a : report.attributions)
    if (is_comparison(a) && a.divergence.key == comparison_key) return &a;
  return nullptr;
}

const Attribution* find_output_attribution(const Report& report, size_t output) {
  for (const auto& a : report.attributions)
    if (!is_comparison(a) && a.divergence.output == output) return &a;
  return nullptr;
}

std::string why_unattributed(const Report& report) {
  if (report.unattributed.empty()) return "";
  if (report.attributions.size() >= kMaxAttributedDivergences)
    return "qlint attributes at most " + std::to_string(kMaxAttributedDivergences) + " divergences a run";
  const std::string needs = "its search does not fit in what is left of the " +
                            std::to_string(report.attribution_budget) + " simulated passes ";
  if (report.attribution_budget_given) return needs + "`--attribution-passes` gives";
  // Said with the pass's size, so that a user can tell what a larger budget costs.
  return needs + "a model this size gets (" + std::to_string(report.attribution_pass_values) +
         " values quantized a pass); `--attribution-passes N` allows more";
}

bool unattributed_comparison(const Report& report, const std::string& comparison_key) {
  for (const auto& d : report.unattributed)
    if (d.kind == Divergence::Kind::Comparison && d.key == comparison_key) return true;
  return false;
}

bool unattributed_output(const Report& report, size_t output) {
  for (const auto& d : report.unattributed)
    if (d.kind == Divergence::Kind::Output && d.output == output) return true;
  return false;
}

namespace {

// "model.py:14:12: aten::eq", "output 3".
std::string divergence_name(const Divergence& d) {
  if (d.kind == Divergence::Kind::Output) return output_name(d.output);
  return ir::display_location(d.loc) + ": " + d.op;
}

nlohmann::json divergence_json(const Divergence& d) {
  if (d.kind == Divergence::Kind::Output) return {{"kind", "output"}, {"output", output_name(d.output)}};
  const bool known = d.loc.known();
  return {{"kind", "comparison"},
          {"node", d.op},
          {"file", known ? nlohmann::json(ir::display_path(d.loc.file)) : nlohmann::json()},
          {"line", known ? nlohmann::json(d.loc.line) : nlohmann::json()},
          {"column", known ? nlohmann::json(d.loc.column) : nlohmann::json()}};
}

}  // namespace

void render_attribution_text(const Report& report, std::ostream& out) {
  if (!report.no_attribution.empty()) out << "\nNo attribution: " << report.no_attribution << "\n";
  if (!report.attributions.empty()) {
    out << "\nAttribution (the quant points that cause each divergence; " << report.attribution_passes
        << " simulated passes):\n";
    for (const auto& a : report.attributions) {
      out << "  " << divergence_title(a) << "\n";
      for (const auto& note : attribution_notes(report, a)) out << "    " << note << "\n";
    }
  }
  if (!report.unattributed.empty()) {
    out << "\nNot attributed (" << why_unattributed(report) << "):\n";
    for (const auto& d : report.unattributed) out << "  " << divergence_name(d) << "\n";
  }
  if (report.sensitivity.empty()) return;
  out << "\nSensitivity (each quant point quantized alone, and kept in float with all others quantized; "
         "most harmful first):\n";
  for (const auto& s : report.sensitivity) {
    out << "  " << describe_point(report, s.point) << "\n    alone: " << s.flips_alone
        << " comparison results flip, lowest output SQNR " << format_db(lowest(s.sqnr_alone))
        << "; kept in float: " << s.flips_without << " flip, lowest output SQNR " << format_db(lowest(s.sqnr_without))
        << "\n";
  }
}

void add_attribution_json(const Report& report, nlohmann::json& out) {
  nlohmann::json divergences = nlohmann::json::array();
  for (const auto& a : report.attributions) {
    nlohmann::json causes = nlohmann::json::array();
    for (const auto& c : a.causes)
      causes.push_back({{"path", c.point},
                        {"name", analysis::module_quant_point_display(c.point)},
                        {"sites", sites_json(find_point(report, c.point))},
                        {"alone", json_number(c.alone)},
                        {"without", json_number(c.without)},
                        {"also_in_float", c.also_in_float},
                        {"reproduces", c.reproduces},
                        {"cures", c.cures}});
    nlohmann::json d = divergence_json(a.divergence);
    d.update({{"measure", json_number(a.measure)},
              {"weights_alone", a.weights_alone},
              {"activations_alone", a.activations_alone ? json_number(*a.activations_alone) : nlohmann::json()},
              {"weights_part", a.weights_part ? json_number(*a.weights_part) : nlohmann::json()},
              {"passes", a.passes},
              {"search_cut", a.search_cut},
              {"causes", causes}});
    if (is_comparison(a)) d["elements"] = a.elements;
    divergences.push_back(d);
  }
  nlohmann::json unattributed = nlohmann::json::array();
  for (const auto& d : report.unattributed) unattributed.push_back(divergence_json(d));
  out["attribution"] = {
      {"passes", report.attribution_passes},
      {"budget", report.attribution_budget},
      {"pass_values", report.attribution_pass_values},
      {"divergences", divergences},
      {"unattributed", unattributed},
      {"unattributed_why", report.unattributed.empty() ? nlohmann::json() : nlohmann::json(why_unattributed(report))},
      {"unavailable", report.no_attribution.empty() ? nlohmann::json() : nlohmann::json(report.no_attribution)}};
  nlohmann::json table = nlohmann::json::array();
  for (const auto& s : report.sensitivity) {
    nlohmann::json alone = nlohmann::json::array(), without = nlohmann::json::array();
    for (double v : s.sqnr_alone) alone.push_back(json_number(v));
    for (double v : s.sqnr_without) without.push_back(json_number(v));
    table.push_back({{"path", s.point},
                     {"name", analysis::module_quant_point_display(s.point)},
                     {"sites", sites_json(find_point(report, s.point))},
                     {"flips_alone", s.flips_alone},
                     {"flips_without", s.flips_without},
                     {"sqnr_db_alone", alone},
                     {"sqnr_db_without", without}});
  }
  out["sensitivity"] = table;
}

}  // namespace qlint::sim
