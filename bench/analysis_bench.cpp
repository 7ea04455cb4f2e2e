// Benchmark: how long qlint's analyses (Facts::compute) and its rules take on the largest
// example models, without the import (LibTorch's loading dominates a cold `qlint check`, and
// is not what the analyses' design changes). Prints a table; asserts nothing.
//
//   qlint_analysis_bench [REPEATS] [MODEL.pt ...]   (run from the repository root after the build;
//                                                    default: build/examples/torchvision/*.pt)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/facts.h"
#include "ir/torchscript/importer.h"
#include "rules/registry.h"

namespace {

using Clock = std::chrono::steady_clock;

size_t node_count(const qlint::ir::Model& model) {
  size_t nodes = 0;
  for (const auto& f : model.functions) qlint::ir::for_each_node(f->body, [&](const qlint::ir::Node&) { ++nodes; });
  return nodes;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// The median over `repeats` runs of analysing `model` (facts) and of checking it (facts + rules).
std::pair<double, double> time_model(const qlint::ir::Model& model, int repeats) {
  std::vector<double> facts_ms, check_ms;
  for (int i = 0; i < repeats; ++i) {
    auto start = Clock::now();
    auto facts = qlint::analysis::Facts::compute(model);
    auto analysed = Clock::now();
    auto diagnostics = qlint::rules::run_all(facts);
    auto checked = Clock::now();
    facts_ms.push_back(std::chrono::duration<double, std::milli>(analysed - start).count());
    check_ms.push_back(std::chrono::duration<double, std::milli>(checked - start).count());
  }
  return {median(facts_ms), median(check_ms)};
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 20;
  std::vector<std::string> models(argv + std::min(argc, 2), argv + argc);
  if (models.empty())
    for (const auto& entry : std::filesystem::directory_iterator("build/examples/torchvision"))
      if (entry.path().extension() == ".pt") models.push_back(entry.path().string());
  std::sort(models.begin(), models.end());
  std::printf("%-28s %8s %10s %12s %14s\n", "model", "nodes", "functions", "facts (ms)", "facts+rules");
  for (const auto& path : models) {
    qlint::ir::Model model = qlint::torchscript::import_torchscript(path);
    auto [facts, check] = time_model(model, repeats);
    std::printf("%-28s %8zu %10zu %12.2f %14.2f\n", std::filesystem::path(path).stem().c_str(), node_count(model),
                model.functions.size(), facts, check);
  }
  std::printf("median of %d runs each\n", repeats);
  return 0;
}
