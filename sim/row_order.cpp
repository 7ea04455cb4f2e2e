#include "sim/row_order.h"

namespace qlint::sim {

namespace {

// Pairing compares every row with every row: bounded, so a large output costs no more than this
// many distance terms per batch (a 1000-row, 64-column output is 64 M).
constexpr int64_t kMaxPairingTerms = int64_t{1} << 26;

bool can_pair(const at::Tensor& f, const at::Tensor& s) {
  if (!f.is_floating_point() || !s.is_floating_point() || f.sizes() != s.sizes() || f.dim() < 2) return false;
  const int64_t rows = f.size(-2), columns = f.size(-1);
  if (rows < 2 || columns < 1 || f.numel() == 0) return false;
  if (f.numel() / columns > kMaxPairingTerms / std::max<int64_t>(rows * columns, 1)) return false;
  return at::isfinite(f).all().item<bool>() && at::isfinite(s).all().item<bool>();
}

}  // namespace

std::optional<at::Tensor> rows_in_float_order(const at::Tensor& float_value, const at::Tensor& simulated) {
  if (!can_pair(float_value, simulated)) return std::nullopt;
  const int64_t rows = float_value.size(-2), columns = float_value.size(-1);
  const at::Tensor f = float_value.reshape({-1, rows, columns}).to(at::kDouble);
  const at::Tensor s = simulated.reshape({-1, rows, columns}).to(at::kDouble);
  const at::Tensor nearest = at::cdist(f, s).argmin(-1);  // per float row, its nearest simulated row
  const at::Tensor in_order = at::arange(rows, nearest.options()).expand_as(nearest);
  if (!at::equal(std::get<0>(nearest.sort(-1)), in_order)) return std::nullopt;  // two rows share one
  if (at::equal(nearest, in_order)) return std::nullopt;                         // already in order
  const at::Tensor paired = at::gather(s, 1, nearest.unsqueeze(-1).expand({s.size(0), rows, columns}));
  return paired.to(simulated.scalar_type()).reshape(simulated.sizes());
}

}  // namespace qlint::sim
