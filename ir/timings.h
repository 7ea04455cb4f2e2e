// Where a command's time goes, per phase, for `QLINT_TIMINGS=1 qlint check ...` (a table on
// stderr at the end) and bench/check_bench.py. Totals over all models and threads; measuring is
// two clock reads per phase and model, so it is always on.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace qlint::ir {

enum class Phase {
  Startup,   // loading LibTorch and qlint's plugin (the binary's dlopen)
  Probe,     // reading the archive's directory and records before LibTorch does (the safety checks)
  Load,      // torch::jit::load
  Import,    // LibTorch's graphs into qlint's IR
  Analysis,  // facts
  Rules,     // rules and the diagnostics filter
  Output,    // rendering the report
  kCount
};

const char* phase_name(Phase phase);

using PhaseTotals = std::array<std::atomic<int64_t>, static_cast<size_t>(Phase::kCount)>;  // nanoseconds

// This copy of the LibTorch-free layers' totals (the binary and the LibTorch plugin each have one).
PhaseTotals& phase_totals();

// Adds the time from its construction to its destruction to `phase`.
class PhaseTimer {
 public:
  explicit PhaseTimer(Phase phase) : phase_(phase), start_(std::chrono::steady_clock::now()) {}
  ~PhaseTimer();
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  Phase phase_;
  std::chrono::steady_clock::time_point start_;
};

// The table printed for QLINT_TIMINGS: one line per phase, in milliseconds, of `totals` and
// `more` added (the plugin's).
std::string render_timings(const PhaseTotals& totals, const PhaseTotals* more);

}  // namespace qlint::ir
