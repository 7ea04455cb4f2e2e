#include "ir/timings.h"

#include <cstdio>

namespace qlint::ir {

const char* phase_name(Phase phase) {
  switch (phase) {
    case Phase::Startup:
      return "LibTorch start-up";
    case Phase::Probe:
      return "probe and safety checks";
    case Phase::Load:
      return "torch::jit::load";
    case Phase::Import:
      return "import";
    case Phase::Analysis:
      return "analysis";
    case Phase::Rules:
      return "rules";
    case Phase::Output:
      return "output";
    case Phase::kCount:
      break;
  }
  return "?";
}

PhaseTotals& phase_totals() {
  static PhaseTotals totals{};
  return totals;
}

PhaseTimer::~PhaseTimer() {
  auto elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_);
  phase_totals()[static_cast<size_t>(phase_)] += elapsed.count();
}

std::string render_timings(const PhaseTotals& totals, const PhaseTotals* more) {
  std::string out = "qlint: timings (all models, all threads):\n";
  for (size_t i = 0; i < totals.size(); ++i) {
    int64_t ns = totals[i].load() + (more ? (*more)[i].load() : 0);
    char line[96];
    std::snprintf(line, sizeof line, "  %-24s %9.1f ms\n", phase_name(static_cast<Phase>(i)), ns / 1e6);
    out += line;
  }
  return out;
}

}  // namespace qlint::ir
