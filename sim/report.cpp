#include "sim/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "ir/display.h"
#include "sim/attribution_report.h"
#include "sim/layers_report.h"

namespace qlint::sim {

namespace {

std::string fixed(double v, int decimals) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string general(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.8g", v);
  return buf;
}

}  // namespace

std::string short_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.5g", v);
  return buf;
}

// JSON has no infinities or NaN: they are strings, as the text report spells them ("NaN" was
// written as "-inf" before, where the text said NaN dB).
nlohmann::json json_number(double v) {
  if (std::isnan(v)) return "NaN";
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(v > 0 ? "inf" : "-inf");
}

std::string format_db(double db) {
  if (std::isinf(db)) return db > 0 ? "inf dB" : "-inf dB";
  if (std::isnan(db)) return "NaN dB";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f dB", db);
  return buf;
}

SqnrChange sqnr_change(const OutputResult& was, const OutputResult& is) {
  if (was.rows_reordered == is.rows_reordered) return {was.sqnr_db, is.sqnr_db, ""};
  auto positional = [](const OutputResult& o) { return o.rows_reordered ? o.positional_sqnr_db : o.sqnr_db; };
  return {positional(was), positional(is),
          is.rows_reordered ? "position by position: the fixed model holds float's rows in another order"
                            : "position by position: the fixed model holds float's rows in float's order again"};
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s.empty() ? "scalar" : s;
}

std::string point_display(const QuantPointResult& p) {
  // A converted model's point named by its value ("forward:%x.1") rather than a module.
  if (!p.op.empty() && p.path.find(':') != std::string::npos) return p.path;
  return analysis::module_quant_point_display(p.path);
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// ", 2 runs not compared: another shape than float's (a decision before it changed what reaches it)".
std::string not_compared_text(int64_t runs) {
  if (runs == 0) return "";
  return ", " + std::to_string(runs) + (runs == 1 ? " run" : " runs") +
         " not compared: another shape than float's (a decision before it changed what reaches it)";
}

namespace {

// "--bits 16 not applied: ...\n" when the model's own ranges decided the width, else "".
std::string bits_not_applied_text(const Report& r) {
  if (r.bits_not_applied == 0) return "";
  return "--bits " + std::to_string(r.bits_not_applied) + " not applied: " +
         (r.int8_ops.empty() ? "every quant point keeps the scale and range stored in the model "
                               "(--recalibrate calibrates new scales at --bits).\n"
                             : "a converted model's int8 kernels run as they are.\n");
}

}  // namespace

std::string render_text(const Report& r) {
  std::ostringstream out;
  const std::string width = width_name(r);
  out << "Simulated " << ir::display_path(r.model) << " at " << width
      << (width == "uint7" ? " (quint8 with reduce_range: 0..127)" : "") << " over " << r.batches
      << (r.batches == 1 ? " input batch" : " input batches") << (r.random_inputs ? " (seeded random inputs)" : "");
  if (r.batches_at_once > 1) out << ", " << r.batches_at_once << " at a time";
  if (!r.batches_in_order.empty()) out << ", one after another: " << r.batches_in_order;
  out << ".\n" << bits_not_applied_text(r) << "\nQuant points:\n";
  if (r.points.empty() && r.int8_ops.empty())
    out << "  none: the model has no QuantStub or FakeQuantize, so nothing is quantized\n";
  if (!r.int8_ops.empty()) {
    out << "  a converted model: its int8 kernels ran as they are on the " << r.engine << " engine ("
        << join(r.int8_ops) << ")";
    if (r.no_float_reference.empty())
      out << ", against a float reference with its quantized ops replaced by float ones on the dequantized weights\n";
    else
      out << "; qlint has no float form of " << r.no_float_reference
          << ", so both runs are the int8 model and show no difference\n";
  }
  for (const auto& p : r.points) {
    out << "  " << point_display(p);
    if (!p.op.empty()) out << " (" << p.op << ")";
    if (std::string sites = point_sites_text(p); !sites.empty()) out << " at " << sites;
    out << ": ";
    if (!p.op.empty()) {
      out << "scale " << general(p.scale) << ", zero point " << p.zero_point << ", int range [" << p.quant_min << ", "
          << p.quant_max << "], values [" << general(p.min) << ", " << general(p.max) << "]\n";
      continue;
    }
    if (!p.reached && !p.stored) {
      out << "not reached by the inputs\n";
      continue;
    }
    out << "scale " << general(p.scale) << (p.stored ? " (stored in the model)" : "") << ", range [" << general(p.min)
        << ", " << general(p.max) << "], int range [" << p.quant_min << ", " << p.quant_max << "]\n";
  }
  out << "\nOutputs (simulated against float):\n";
  for (const auto& o : r.outputs) {
    if (!o.shape_difference.empty()) {
      out << "  " << o.name << ": its shape differs (" << o.shape_difference << "): a size the data decides changed\n";
      continue;
    }
    // A mask or indices: how many values differ, as check and --fix judge them; no SQNR of class
    // ids (public round 21: "SQNR 10.0 dB" for an argmax).
    if (o.integer) {
      const std::string m = std::to_string(o.elements);
      out << "  " << o.name << " [" << shape_text(o.shape) << "] (bool or integer values): "
          << (o.differing_elements > 0
                  ? std::to_string(o.differing_elements) + " of " + m + " differ from float" +
                        (o.rows_reordered ? "; other batches hold float's values in another order" : "")
              : o.rows_reordered ? "the same " + m + " values as float, in another order (near-ties changed places)"
                                 : "all " + m + " as in float")
          << "\n";
      continue;
    }
    out << "  " << o.name << " [" << shape_text(o.shape) << "]: max abs error " << general(o.max_abs_error) << ", SQNR "
        << format_db(o.sqnr_db) << ", cosine " << fixed(o.cosine, 6) << "\n";
    if (o.rows_reordered)
      out << "    the same rows as float in another order (near-ties changed places): measured with its rows paired "
             "with float's; position by position, SQNR "
          << format_db(o.positional_sqnr_db) << "\n";
  }
  const bool integer_results = std::any_of(r.comparisons.begin(), r.comparisons.end(),
                                           [](const ComparisonResult& c) { return c.integer_result; });
  if (!r.comparisons.empty())
    out << "\n"
        << (integer_results ? "Comparisons and integer results (argmax, topk, NMS, casts: elements whose result "
                              "differs from float):\n"
                            : "Comparisons (elements whose result differs from float):\n");
  for (const auto& c : r.comparisons)
    out << "  " << ir::display_location(c.loc) << ": " << c.kind << ": "
        << (c.elements == 0 ? "none compared"
            : c.differing   ? std::to_string(c.differing) + " of " + std::to_string(c.elements) + " differ"
                            : std::to_string(c.differing) + " of " + std::to_string(c.elements) + " (all agree)")
        << not_compared_text(c.runs_not_compared) << "\n";
  render_layers_text(r, out);
  render_attribution_text(r, out);
  return out.str();
}

nlohmann::json render_json(const Report& r) {
  nlohmann::json points = nlohmann::json::array(), outputs = nlohmann::json::array(),
                 comparisons = nlohmann::json::array();
  for (const auto& p : r.points)
    points.push_back({{"path", p.path},
                      {"name", point_display(p)},
                      {"op", p.op.empty() ? nlohmann::json() : nlohmann::json(p.op)},
                      {"reached", p.reached},
                      {"stored", p.stored},
                      {"scale", p.scale},
                      {"zero_point", p.zero_point},
                      {"quant_min", p.quant_min},
                      {"quant_max", p.quant_max},
                      {"min", p.min},
                      {"max", p.max},
                      {"sites", point_sites_json(p)}});
  for (const auto& o : r.outputs)
    outputs.push_back(
        {{"name", o.name},
         {"shape", o.shape},
         {"max_abs_error", o.max_abs_error},
         {"sqnr_db", json_number(o.sqnr_db)},
         {"cosine", o.cosine},
         {"shape_difference", o.shape_difference.empty() ? nlohmann::json() : nlohmann::json(o.shape_difference)},
         {"integer", o.integer},
         {"differing_elements", o.differing_elements},
         {"elements", o.elements},
         {"rows_reordered", o.rows_reordered},
         {"positional_sqnr_db", json_number(o.positional_sqnr_db)}});
  for (const auto& c : r.comparisons) {
    bool known = c.loc.known();
    comparisons.push_back({{"node", c.kind},
                           {"file", known ? nlohmann::json(ir::display_path(c.loc.file)) : nlohmann::json()},
                           {"line", known ? nlohmann::json(c.loc.line) : nlohmann::json()},
                           {"column", known ? nlohmann::json(c.loc.column) : nlohmann::json()},
                           {"elements", c.elements},
                           {"differing", c.differing},
                           {"constant", c.constant ? nlohmann::json(*c.constant) : nlohmann::json()},
                           {"operand_only_zero_or_constant", c.operand_only_zero_or_constant},
                           {"integer_result", c.integer_result},
                           {"runs_not_compared", c.runs_not_compared}});
  }
  nlohmann::json out = {
      {"version", ir::kJsonSchemaVersion},
      {"tool", {{"name", "qlint"}, {"version", QLINT_VERSION}}},
      {"model", ir::display_path(r.model)},
      {"bits", r.bits},
      {"bits_not_applied", r.bits_not_applied == 0 ? nlohmann::json() : nlohmann::json(r.bits_not_applied)},
      {"batches", r.batches},
      {"random_inputs", r.random_inputs},
      {"batches_at_once", r.batches_at_once},
      {"batches_in_order", r.batches_in_order.empty() ? nlohmann::json() : nlohmann::json(r.batches_in_order)},
      {"engine", r.engine},
      {"cpu", r.cpu},
      {"quant_points", points},
      {"outputs", outputs},
      {"comparisons", comparisons},
      {"int8_ops", r.int8_ops},
      {"float_reference", r.int8_ops.empty() ? nlohmann::json() : nlohmann::json(r.no_float_reference.empty())}};
  add_attribution_json(r, out);
  add_layers_json(r, out);
  return out;
}

analysis::SimulationEvidence evidence_from(const sim::Report& report) {
  analysis::SimulationEvidence evidence;
  for (const auto& p : report.points)
    // A converted model's int8 outputs are no stub or FakeQuantize the rules know.
    if ((p.reached || p.stored) && p.op.empty())
      evidence.calibration[p.path] = {p.scale, p.zero_point, p.quant_min, p.quant_max};
  for (const auto& c : report.comparisons) {
    const std::string key = analysis::comparison_key(c.kind, c.loc);
    if (c.operand_only_zero_or_constant) evidence.binary_comparisons.insert(key);
    if (c.constant && !c.integer_result && c.elements > 0) evidence.simulated_comparisons.insert(key);
  }
  evidence.input_dtypes = report.input_dtypes;
  evidence.zero_one_inputs = report.zero_one_inputs;
  return evidence;
}

analysis::SimulatedRun simulated_run(const Report& report, double min_sqnr_db) {
  analysis::SimulatedRun run;
  run.bits = report.bits;
  run.width = width_name(report);
  run.batches = report.batches;
  run.random_inputs = report.random_inputs;
  run.min_sqnr_db = min_sqnr_db;
  for (const auto& c : report.comparisons) {
    // One source range can hold several probes (a helper called twice): their counts add up.
    const std::string key = analysis::comparison_key(c.kind, c.loc);
    auto& total = run.comparisons[key];
    total.elements += c.elements;
    total.differing += c.differing;
    for (const std::string& function : c.functions) {
      auto& copy = run.copies[analysis::copy_key(function, key, c.copy)];
      copy.elements += c.elements;
      copy.differing += c.differing;
      run.copies_in_function[analysis::copy_key(function, key)] = c.copies;
    }
  }
  for (const auto& o : report.outputs)
    run.outputs.push_back({o.name, o.sqnr_db, o.shape_difference, o.integer, o.differing_elements});
  return run;
}

std::string width_name(const Report& r) {
  bool unsigned_activations = r.bits == 8 && r.int8_ops.empty();
  bool any = false, reduced = true;
  const std::string weights = "weight_fake_quant";
  for (const auto& p : r.points) {
    const bool weight =
        p.path.size() >= weights.size() && p.path.compare(p.path.size() - weights.size(), weights.size(), weights) == 0;
    if (weight || !p.reached) continue;
    any = true;
    unsigned_activations = unsigned_activations && p.quant_min >= 0;
    reduced = reduced && p.quant_min == 0 && p.quant_max == 127;
  }
  if (!unsigned_activations || !any) return "int" + std::to_string(r.bits);
  return reduced ? "uint7" : "uint8";
}

double default_min_sqnr_db(int bits) { return bits <= 8 ? 20 : 40; }

}  // namespace qlint::sim
