#pragma once

// Outputs whose rows a decision orders: an NMS keeps boxes by score, a gather by argsort takes
// tokens by noise. Near-ties that change places once quantized give the same rows in another
// order, which a comparison position by position counts as errors (a public NMS head: 8.6 dB
// position by position, 117.8 dB with its rows paired).

#include <ATen/ATen.h>

#include <optional>

namespace qlint::sim {

// The simulated value with its rows along `dim` (each a slice of all later dimensions, within
// each index of the earlier ones: dim 1 of modes x time x 2 trajectories is a mode) put in the
// float value's order, when each float row's nearest simulated row makes a permutation other than
// the identity: the same rows in another order. nullopt otherwise, for the last dimension (its
// rows would be single numbers, whose nearest pairing sorts any values), values that are not
// floating point, differ in shape, hold NaN or infinity, or are too large to pair.
std::optional<at::Tensor> rows_in_float_order(const at::Tensor& float_value, const at::Tensor& simulated, int64_t dim);

// The same, with the order it found when the value holds one set of rows (every dimension before
// `dim` of size 1): simulated row `order[r]` pairs with float row r.
struct RowsInFloatOrder {
  at::Tensor value;
  std::optional<at::Tensor> order;
};
std::optional<RowsInFloatOrder> rows_and_order_in_float_order(const at::Tensor& float_value,
                                                              const at::Tensor& simulated, int64_t dim);

// Another output of the same batch with the rows of one such order: outputs gathered by the same
// indices (`box[idx], cls[idx]` after a topk whose near-ties changed places) hold their rows in
// the same order, which a 1-D output or one of repeated values (class ids) cannot show by itself
// (public round 29's CenterTrack: the boxes paired at 46.8 dB, their class ids "0.0 dB"). Along
// the first dimension with `order`'s number of rows and only dimensions of size 1 before it;
// nullopt when there is none.
std::optional<at::Tensor> in_row_order(const at::Tensor& simulated, const at::Tensor& order);

}  // namespace qlint::sim
