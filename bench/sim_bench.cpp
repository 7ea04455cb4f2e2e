// Benchmark: how long `qlint sim` takes per input batch, against a plain float forward of the
// same TorchScript model in LibTorch and against PyTorch eager fake-quant in Python, measured
// in one run on this machine; then mobilenet_v2's 8 batches on one thread and on every core
// (`qlint sim -j`). Prints tables; asserts nothing.
//
//   qlint_sim_bench [BATCHES]     (run from the repository root after the build)
#include <ATen/Parallel.h>
#include <torch/script.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "sim/simulator.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Case {
  std::string name;
  std::string model;   // exported TorchScript archive
  std::string eager;   // what bench/eager_fakequant.py builds
  std::string shapes;  // input shapes
  int batches;
};

std::vector<std::vector<int64_t>> parse_shapes(const std::string& spec) {
  std::vector<std::vector<int64_t>> shapes;
  std::stringstream all(spec);
  std::string one, dim;
  while (std::getline(all, one, ',')) {
    std::vector<int64_t> shape;
    std::stringstream dims(one);
    while (std::getline(dims, dim, 'x')) shape.push_back(std::stoll(dim));
    shapes.push_back(shape);
  }
  return shapes;
}

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Mean of a plain float forward (after a warm-up), the baseline every other figure divides by.
double float_forward_ms(const Case& c) {
  torch::jit::Module module = torch::jit::load(c.model);
  module.eval();
  torch::NoGradGuard no_grad;
  torch::manual_seed(0);
  std::vector<c10::IValue> inputs;
  for (const auto& shape : parse_shapes(c.shapes)) inputs.push_back(torch::randn(shape));
  module.forward(inputs);
  auto start = Clock::now();
  for (int i = 0; i < c.batches; ++i) module.forward(inputs);
  return ms_since(start) / c.batches;
}

// Everything `qlint sim` does per batch (a calibrating float pass and a simulated pass), with
// loading and instrumenting the model spread over the batches.
double qlint_sim_ms(const Case& c) {
  qlint::sim::Inputs inputs;
  inputs.random_shapes = c.shapes;
  inputs.random_batches = c.batches;
  auto start = Clock::now();
  qlint::sim::simulate(c.model, inputs, {});
  return ms_since(start) / c.batches;
}

// `qlint sim` of a loaded model on `batches` random batches with `threads` threads (-j), in ms:
// instrumenting, calibrating and simulating, not loading.
double simulate_loaded_ms(torch::jit::Module& model, const Case& c, int batches, int threads) {
  qlint::sim::Inputs inputs;
  inputs.random_shapes = c.shapes;
  inputs.random_batches = batches;
  qlint::sim::Options options;
  options.threads = threads;
  auto start = Clock::now();
  qlint::sim::simulate(model, c.model, inputs, options);
  return ms_since(start);
}

// Batches at once (`qlint sim -j`): one thread against all the machine's, alternating rounds,
// medians.
void batches_at_once(const Case& c, int batches, int rounds) {
  torch::jit::Module model = torch::jit::load(c.model);
  int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<double> one, all;
  for (int r = 0; r < rounds; ++r) {
    one.push_back(simulate_loaded_ms(model, c, batches, 1));
    all.push_back(simulate_loaded_ms(model, c, batches, cores));
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf("\nBatches at once: %s, %d batches, median of %d alternating rounds\n", c.name.c_str(), batches, rounds);
  std::printf("  -j 1: %.0f ms   -j %d: %.0f ms   speed-up %.2fx\n", median(one), cores, median(all),
              median(one) / median(all));
}

double eager_fakequant_ms(const Case& c) {
  std::string cmd = "/usr/bin/python3 bench/eager_fakequant.py '" + c.eager + "' " + c.shapes + " " +
                    std::to_string(c.batches) + " 2>/dev/null";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return -1;
  char buf[64] = {0};
  bool ok = std::fgets(buf, sizeof buf, pipe) != nullptr;
  return pclose(pipe) == 0 && ok ? std::stod(buf) : -1;
}

}  // namespace

int main(int argc, char** argv) {
  int scale = argc > 1 ? std::max(1, std::atoi(argv[1])) : 1;
  const std::vector<Case> cases = {
      {"seed S1 (1x2x4x4)", "build/examples/seed/s1_eq_one.pt", "examples/seed/s1_eq_one.py", "1x2x4x4", 200 * scale},
      {"seed S6 (1x2x4x4)", "build/examples/seed/s6_separate_stubs.pt", "examples/seed/s6_separate_stubs.py", "1x2x4x4",
       200 * scale},
      {"two-stub conv net", "build/examples/sim/two_stub_convnet.pt", "examples/sim/two_stub_convnet.py", "1x3x8x8,1x4",
       200 * scale},
      {"mobilenet_v2 (1x3x224x224)", "build/examples/torchvision/mobilenet_v2.pt", "torchvision:mobilenet_v2",
       "1x3x224x224", 10 * scale},
  };
  std::printf("qlint sim benchmark: %u hardware threads, LibTorch intra-op threads %d\n",
              std::thread::hardware_concurrency(), at::get_num_threads());
  std::printf(
      "Per input batch; qlint sim and eager fake-quant each run a calibrating float pass and a\n"
      "simulated pass per batch, so 2.0x float is the floor.\n\n");
  std::printf("%-28s %8s %12s %12s %16s %12s\n", "model", "batches", "float ms", "qlint ms", "eager fq ms",
              "qlint/float");
  for (const auto& c : cases) {
    double float_ms = float_forward_ms(c);
    double qlint_ms = qlint_sim_ms(c);
    double eager_ms = eager_fakequant_ms(c);
    std::printf("%-28s %8d %12.3f %12.3f %16.3f %11.2fx   qlint/eager %.2fx\n", c.name.c_str(), c.batches, float_ms,
                qlint_ms, eager_ms, qlint_ms / float_ms, eager_ms > 0 ? qlint_ms / eager_ms : 0.0);
  }
  batches_at_once(cases.back(), 8, 5);
  return 0;
}
