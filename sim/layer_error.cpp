#include "sim/layer_error.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ir/display.h"
#include "sim/report.h"

namespace qlint::sim {

namespace {

// Quantized values (a converted model's int8 side) are compared as the floats they stand for.
at::Tensor as_double(const at::Tensor& t) { return (t.is_quantized() ? t.dequantize() : t).detach().to(at::kDouble); }

}  // namespace

void ErrorStats::add(const at::Tensor& float_value, const at::Tensor& simulated_value) {
  shape = float_value.sizes().vec();
  if (float_value.sizes() != simulated_value.sizes()) {
    // A size the data decides (how many boxes pass a threshold) changed: nothing to compare
    // element by element, and the value is as wrong as it can be.
    if (shape_difference.empty())
      shape_difference = shape_text(float_value.sizes().vec()) + " in float, " +
                         shape_text(simulated_value.sizes().vec()) + " once quantized";
    return;
  }
  at::Tensor f = as_double(float_value);
  at::Tensor s = as_double(simulated_value);
  // A masked logit at -inf in both runs is no error (-inf - -inf would be NaN noise); a value
  // that is infinite or NaN in one run only is counted apart and makes the SQNR NaN.
  const at::Tensor both_finite = f.isfinite().logical_and(s.isfinite());
  const at::Tensor alike = f.eq(s).logical_or(f.isnan().logical_and(s.isnan()));
  nonfinite_mismatches += both_finite.logical_or(alike).logical_not().sum().item<int64_t>();
  f = f.where(both_finite, at::zeros_like(f));
  s = s.where(both_finite, at::zeros_like(s));
  at::Tensor diff = s - f;
  if (diff.numel() > 0) max_abs = std::max(max_abs, diff.abs().max().item<double>());
  elements += f.numel();
  signal += (f * f).sum().item<double>();
  noise += (diff * diff).sum().item<double>();
  dot += (f * s).sum().item<double>();
  norm_float += (f * f).sum().item<double>();
  norm_sim += (s * s).sum().item<double>();
}

void ErrorStats::merge(const ErrorStats& other) {
  shape = other.shape;
  if (shape_difference.empty()) shape_difference = other.shape_difference;
  nonfinite_mismatches += other.nonfinite_mismatches;
  max_abs = std::max(max_abs, other.max_abs);
  elements += other.elements;
  signal += other.signal;
  noise += other.noise;
  dot += other.dot;
  norm_float += other.norm_float;
  norm_sim += other.norm_sim;
}

double ErrorStats::sqnr_db() const {
  if (!shape_difference.empty()) return -std::numeric_limits<double>::infinity();
  if (nonfinite_mismatches > 0) return std::numeric_limits<double>::quiet_NaN();
  return noise == 0 ? std::numeric_limits<double>::infinity() : 10 * std::log10(signal / noise);
}

double ErrorStats::cosine() const {
  if (!shape_difference.empty()) return 0;
  if (norm_float == 0 || norm_sim == 0) return norm_float == norm_sim ? 1.0 : 0.0;
  return dot / std::sqrt(norm_float * norm_sim);
}

LayerRecorder::LayerRecorder(int64_t memory_mib)
    // A budget too large to count in bytes is no limit.
    : budget_bytes_(memory_mib > std::numeric_limits<int64_t>::max() / (1024 * 1024)
                        ? std::numeric_limits<int64_t>::max()
                        : memory_mib * 1024 * 1024) {}

size_t LayerRecorder::row_for(LayerResult::Kind kind, const std::string& path, const ir::SourceLoc& loc) {
  // One row per place: the same module called from two lines is two rows, a loop's calls one.
  std::string key = std::to_string(static_cast<int>(kind)) + "\n" + path + "\n" + loc.file + ":" +
                    std::to_string(loc.line) + ":" + std::to_string(loc.column);
  auto [it, added] = row_index_.emplace(key, rows_.size());
  if (added) {
    Row row;
    row.result.kind = kind;
    row.result.path = path;
    row.result.loc = loc;
    rows_.push_back(row);
  }
  return it->second;
}

void LayerRecorder::record_float(LayerResult::Kind kind, const std::string& path, const ir::SourceLoc& loc,
                                 size_t batch, const at::Tensor& value) {
  Kept kept{row_for(kind, path, loc), at::Tensor()};
  LayerResult& result = rows_[kept.row].result;
  if (result.calls++ == 0) result.shape = value.sizes().vec();
  const at::Tensor plain = value.is_quantized() ? value.dequantize() : value;
  const auto bytes = static_cast<int64_t>(plain.nbytes());
  if (kept_bytes_ + bytes <= budget_bytes_) {
    // A copy: the model may change the value in place later on (an inplace ReLU).
    kept.value = plain.detach().clone();
    kept_bytes_ += bytes;
  } else {
    ++not_compared_;
  }
  float_calls_[{kind, path, batch}].push_back(std::move(kept));
}

void LayerRecorder::record_simulated(LayerResult::Kind kind, const std::string& path, size_t batch,
                                     const at::Tensor& value) {
  const CallKey key{kind, path, batch};
  const size_t call = simulated_calls_[key]++;
  auto it = float_calls_.find(key);
  if (it == float_calls_.end() || call >= it->second.size()) {
    ++not_compared_;  // more calls than in float (a loop whose count depends on quantized values)
    return;
  }
  Kept& kept = it->second[call];
  if (!kept.value.defined()) return;  // over the budget: counted when the float run kept nothing
  Row& row = rows_[kept.row];
  row.error.add(kept.value, value);
  ++row.result.compared;
  kept_bytes_ -= static_cast<int64_t>(kept.value.nbytes());
  kept.value = at::Tensor();
}

std::vector<LayerResult> LayerRecorder::results() const {
  std::vector<LayerResult> out;
  for (const Row& row : rows_) {
    LayerResult r = row.result;
    r.elements = row.error.elements;
    r.max_abs_error = row.error.max_abs;
    r.sqnr_db = row.error.sqnr_db();
    r.shape_difference = row.error.shape_difference;
    out.push_back(r);
  }
  return out;
}

}  // namespace qlint::sim
