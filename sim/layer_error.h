// Per-layer error (`qlint sim --layers`): the SQNR of every quant point's and every submodule
// call's value against float, so the first place where the error explodes is visible.
//
// The float run hands each value to record_float, which keeps a copy until the simulated run
// hands over the same call's value (record_simulated); then only running sums remain (signal
// and error energy, max abs error), so memory is bounded by what the float run holds between
// the two runs, itself capped by a budget. Calls are matched per name and batch in order: the
// simulated run's k-th call of `backbone.layer1` is judged against the float run's k-th.
#pragma once

#include <torch/script.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/simulator.h"

namespace qlint::sim {

// How far simulated values are from float ones, summed over calls (an output over batches, a
// layer over its calls): in double, as PyTorch's reference computes it (tests/sim/reference.py).
struct ErrorStats {
  std::vector<int64_t> shape;  // the float value's, of the last call
  double max_abs = 0, signal = 0, noise = 0, dot = 0, norm_float = 0, norm_sim = 0;
  int64_t elements = 0;
  // Elements infinite or NaN in one run and not alike in the other (an infinite scale made
  // them NaN): the SQNR is then NaN. Equal infinities (a masked logit) are no error.
  int64_t nonfinite_mismatches = 0;
  // "34x4 in float, 36x4 once quantized" the first time the shapes differ.
  std::string shape_difference;

  void add(const at::Tensor& float_value, const at::Tensor& simulated_value);
  // Adds what `other` gathered (one call of add or more), as if its calls had been made here.
  void merge(const ErrorStats& other);
  // +inf when exact, -inf once a shape differed, NaN with non-finite mismatches.
  double sqnr_db() const;
  double cosine() const;
};

class LayerRecorder {
 public:
  explicit LayerRecorder(int64_t memory_mib);

  void record_float(LayerResult::Kind kind, const std::string& path, const ir::SourceLoc& loc, size_t batch,
                    const at::Tensor& value);
  void record_simulated(LayerResult::Kind kind, const std::string& path, size_t batch, const at::Tensor& value);

  // The rows in the order the float run first reached them; values the simulated run did not
  // reach are released.
  std::vector<LayerResult> results() const;
  // Float values not compared: over the memory budget, or computed more often once quantized.
  int64_t not_compared() const { return not_compared_; }

 private:
  struct Row {
    LayerResult result;
    ErrorStats error;
  };
  struct Kept {
    size_t row = 0;
    at::Tensor value;  // undefined when it did not fit into the budget, or once compared
  };
  using CallKey = std::tuple<LayerResult::Kind, std::string, size_t>;  // kind, path, batch

  size_t row_for(LayerResult::Kind kind, const std::string& path, const ir::SourceLoc& loc);

  int64_t budget_bytes_;
  int64_t kept_bytes_ = 0;
  int64_t not_compared_ = 0;
  std::vector<Row> rows_;
  std::map<std::string, size_t> row_index_;
  std::map<CallKey, std::vector<Kept>> float_calls_;
  std::map<CallKey, size_t> simulated_calls_;
};

}  // namespace qlint::sim
