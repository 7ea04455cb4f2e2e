#include "sim/engine.h"

#include <ATen/Context.h>

#include <algorithm>
#include <cctype>

#include "sim/simulator.h"

namespace qlint::sim {

namespace {

std::string name_of(at::QEngine engine) {
  std::string name = c10::toString(engine);
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return name;
}

bool supported(at::QEngine engine) {
  const auto& engines = at::globalContext().supportedQEngines();
  return std::find(engines.begin(), engines.end(), engine) != engines.end();
}

std::string supported_names() {
  std::string names;
  for (at::QEngine engine : at::globalContext().supportedQEngines())
    if (engine != at::kNoQEngine) names += (names.empty() ? "" : ", ") + name_of(engine);
  return names;
}

}  // namespace

std::string select_quantized_engine(const std::string& requested) {
  // QNNPACK unless asked otherwise: its results do not depend on the CPU (engine.h). A LibTorch
  // built without it keeps its own default, whatever that is.
  const std::string wanted = requested.empty() ? "qnnpack" : requested;
  for (at::QEngine engine : {at::kQNNPACK, at::kONEDNN, at::kFBGEMM, at::kX86}) {
    if (name_of(engine) != wanted) continue;
    if (supported(engine)) {
      at::globalContext().setQEngine(engine);
      return wanted;
    }
    if (requested.empty()) return quantized_engine();
    throw SimError("the quantized engine " + wanted + " is not in this LibTorch (it has " + supported_names() + ")");
  }
  throw SimError("unknown quantized engine " + wanted + " (this LibTorch has " + supported_names() + ")");
}

std::string quantized_engine() { return name_of(at::globalContext().qEngine()); }

std::string cpu_features() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  std::string features;
  auto add = [&](bool has, const char* name) {
    if (has) features += (features.empty() ? "" : " ") + std::string(name);
  };
  add(__builtin_cpu_supports("avx2"), "avx2");
  add(__builtin_cpu_supports("avx512f"), "avx512f");
  add(__builtin_cpu_supports("avx512vnni"), "avx512vnni");
  add(__builtin_cpu_supports("avxvnni"), "avxvnni");
  return "x86-64" + (features.empty() ? std::string() : " " + features);
#else
  return "not x86-64";
#endif
}

}  // namespace qlint::sim
