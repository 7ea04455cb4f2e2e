#include "sim/layers_report.h"

#include <cmath>
#include <cstdio>

#include "analysis/facts.h"
#include "ir/display.h"
#include "sim/report.h"

namespace qlint::sim {

namespace {

const char* kind_name(LayerResult::Kind kind) {
  return kind == LayerResult::Kind::QuantPoint ? "quant point" : "module";
}

// "3 calls" when the row's place ran more often than once a batch (a loop, `f(f(x))`); which of
// them the figures leave out (over --layers-memory).
std::string calls_text(const LayerResult& layer, int batches) {
  std::string out;
  if (layer.calls > batches)
    out = ", " + std::to_string(layer.calls) + " calls" +
          (batches == 1 ? std::string() : " over " + std::to_string(batches) + " batches");
  if (layer.compared > 0 && layer.compared < layer.calls)
    out += " (" + std::to_string(layer.compared) + " of " + std::to_string(layer.calls) + " compared)";
  return out;
}

std::string error_text(const LayerResult& layer) {
  if (!layer.shape_difference.empty()) return "its shape differs (" + layer.shape_difference + ")";
  if (layer.compared == 0) return "not compared";
  return "SQNR " + format_db(layer.sqnr_db) + ", max abs error " + short_number(layer.max_abs_error);
}

}  // namespace

std::string layer_display(const LayerResult& layer) {
  return layer.kind == LayerResult::Kind::QuantPoint ? analysis::module_quant_point_display(layer.path)
                                                     : "self." + layer.path;
}

void render_layers_text(const Report& r, std::ostream& out) {
  if (!r.layers_requested) return;
  const double min_sqnr_db = r.layers_min_sqnr_db.value_or(default_min_sqnr_db(r.bits));
  out << "\nLayers (each value against float, in execution order):\n";
  if (r.layers.empty()) out << "  none: the model calls no submodule and has no quant point\n";
  bool marked = false;
  for (const auto& layer : r.layers) {
    out << "  " << layer_display(layer) << " (" << kind_name(layer.kind) << ")";
    if (layer.loc.known()) out << " at " << ir::display_location(layer.loc);
    out << " [" << shape_text(layer.shape) << "]: " << error_text(layer) << calls_text(layer, r.batches);
    if (!marked && layer.compared > 0 && layer.sqnr_db < min_sqnr_db) {
      out << "  <- first under " << short_number(min_sqnr_db) << " dB";
      marked = true;
    }
    out << "\n";
  }
  if (r.layers_not_compared > 0)
    out << "  " << r.layers_not_compared << " value" << (r.layers_not_compared == 1 ? "" : "s")
        << " not compared: over --layers-memory " << r.layers_memory_mib
        << " MiB, or computed more often once quantized\n";
}

void add_layers_json(const Report& r, nlohmann::json& out) {
  if (!r.layers_requested) return;
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& layer : r.layers) {
    bool known = layer.loc.known();
    bool compared = layer.compared > 0 && layer.shape_difference.empty();
    layers.push_back({{"kind", layer.kind == LayerResult::Kind::QuantPoint ? "quant_point" : "module"},
                      {"path", layer.path},
                      {"name", layer_display(layer)},
                      {"file", known ? nlohmann::json(ir::display_path(layer.loc.file)) : nlohmann::json()},
                      {"line", known ? nlohmann::json(layer.loc.line) : nlohmann::json()},
                      {"column", known ? nlohmann::json(layer.loc.column) : nlohmann::json()},
                      {"shape", layer.shape},
                      {"calls", layer.calls},
                      {"compared", layer.compared},
                      {"elements", layer.elements},
                      {"sqnr_db", layer.compared > 0 ? json_number(layer.sqnr_db) : nlohmann::json()},
                      {"max_abs_error", compared ? nlohmann::json(layer.max_abs_error) : nlohmann::json()},
                      {"shape_difference",
                       layer.shape_difference.empty() ? nlohmann::json() : nlohmann::json(layer.shape_difference)}});
  }
  out["layers"] = layers;
  out["layers_not_compared"] = r.layers_not_compared;
  out["layers_memory_mib"] = r.layers_memory_mib;
  out["layers_min_sqnr_db"] = r.layers_min_sqnr_db.value_or(default_min_sqnr_db(r.bits));
}

}  // namespace qlint::sim
