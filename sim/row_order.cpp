#include "sim/row_order.h"

#include <algorithm>
#include <vector>

namespace qlint::sim {

namespace {

// Pairing compares every row with every row: bounded, so a large output costs no more than this
// many distance terms per batch (a 1000-row, 64-column output is 64 M).
constexpr int64_t kMaxPairingTerms = int64_t{1} << 26;

// The value as (leading index, row, row's elements) for rows along `dim`.
std::vector<int64_t> row_shape(const at::Tensor& v, int64_t dim) {
  int64_t leading = 1, trailing = 1;
  for (int64_t d = 0; d < dim; ++d) leading *= v.size(d);
  for (int64_t d = dim + 1; d < v.dim(); ++d) trailing *= v.size(d);
  return {leading, v.size(dim), trailing};
}

bool can_pair(const at::Tensor& f, const at::Tensor& s, int64_t dim) {
  if (!f.is_floating_point() || !s.is_floating_point() || f.sizes() != s.sizes() || dim < 0 || dim + 1 >= f.dim())
    return false;
  const std::vector<int64_t> shape = row_shape(f, dim);
  const int64_t leading = shape[0], rows = shape[1], columns = shape[2];
  if (rows < 2 || columns < 1 || f.numel() == 0) return false;
  if (leading > kMaxPairingTerms / std::max<int64_t>(rows * rows * columns, 1)) return false;
  return at::isfinite(f).all().item<bool>() && at::isfinite(s).all().item<bool>();
}

}  // namespace

std::optional<at::Tensor> rows_in_float_order(const at::Tensor& float_value, const at::Tensor& simulated, int64_t dim) {
  auto found = rows_and_order_in_float_order(float_value, simulated, dim);
  return found ? std::optional<at::Tensor>(found->value) : std::nullopt;
}

std::optional<at::Tensor> in_row_order(const at::Tensor& simulated, const at::Tensor& order) {
  for (int64_t dim = 0; dim < simulated.dim(); ++dim) {
    if (simulated.size(dim) == order.size(0)) return simulated.index_select(dim, order);
    if (simulated.size(dim) != 1) return std::nullopt;
  }
  return std::nullopt;
}

std::optional<RowsInFloatOrder> rows_and_order_in_float_order(const at::Tensor& float_value,
                                                              const at::Tensor& simulated, int64_t dim) {
  if (!can_pair(float_value, simulated, dim)) return std::nullopt;
  const std::vector<int64_t> shape = row_shape(float_value, dim);
  const int64_t rows = shape[1], columns = shape[2];
  const at::Tensor f = float_value.reshape(shape).to(at::kDouble);
  const at::Tensor s = simulated.reshape(shape).to(at::kDouble);
  const at::Tensor nearest = at::cdist(f, s).argmin(-1);  // per float row, its nearest simulated row
  const at::Tensor in_order = at::arange(rows, nearest.options()).expand_as(nearest);
  if (!at::equal(std::get<0>(nearest.sort(-1)), in_order)) return std::nullopt;  // two rows share one
  if (at::equal(nearest, in_order)) return std::nullopt;                         // already in order
  const at::Tensor paired = at::gather(s, 1, nearest.unsqueeze(-1).expand({s.size(0), rows, columns}));
  RowsInFloatOrder out{paired.to(simulated.scalar_type()).reshape(simulated.sizes()), std::nullopt};
  if (shape[0] == 1) out.order = nearest[0];
  return out;
}

}  // namespace qlint::sim
