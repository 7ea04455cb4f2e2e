// Rendering the per-layer error (`qlint sim --layers`, Report::layers) in `qlint sim`'s text
// and JSON (docs/json-output.md).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "sim/simulator.h"

namespace qlint::sim {

// "self.backbone.layer1" for a module call, "self.quant" for a quant point: as the user wrote it.
std::string layer_display(const LayerResult& layer);

// The "Layers" section of the text, when --layers asked for it: one line per row, in execution
// order, the first row under the SQNR threshold (--min-sqnr, else the width's default) marked.
void render_layers_text(const Report& report, std::ostream& out);

// The JSON members `layers` (an array, in execution order) and `layers_not_compared`, when
// --layers asked for them.
void add_layers_json(const Report& report, nlohmann::json& out);

}  // namespace qlint::sim
