#!/usr/bin/env python3
"""The C++ front end's costs, as figures (docs/benchmarks.md; never a test).

For each examples/cxx program: the best of N runs (CPU time) of plain `clang++ -fsyntax-only` of the file,
the same with `-fplugin=libqlint_clang.so`, and the plugin's share; then `qlint cxx -p build` over
all examples (LibTooling, the build's compile_commands.json, no precompiled header).

usage: bench/cxx_bench.py [RUNS]   (from the repository root, after scripts/setup)
"""
import glob
import os
import resource
import subprocess
import sys

CLANGXX = "/usr/lib/llvm-14/bin/clang++"
FLAGS = ["-std=c++17", "-I/usr/include/torch/csrc/api/include"]


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def best(command, runs):
    """The best of `runs` runs, as CPU seconds (user + system) of the command: on a shared
    machine wall time swings with the load, the work a compiler does does not."""
    times = []
    for _ in range(runs):
        start = cpu_seconds()
        subprocess.run(command, check=False, capture_output=True)
        times.append(cpu_seconds() - start)
    return min(times)


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    plugin = os.path.abspath("build/libqlint_clang.so")
    examples = sorted(glob.glob("examples/cxx/*.cpp"))
    print(f"best of {runs} runs; clang++ 14, -fsyntax-only, LibTorch headers ({FLAGS[1]})\n")
    print("| file | clang++ CPU s | with plugin CPU s | plugin adds |")
    print("|---|---:|---:|---:|")
    plain_total = plugin_total = 0.0
    for source in examples:
        plain = best([CLANGXX, "-fsyntax-only", *FLAGS, source], runs)
        with_plugin = best([CLANGXX, f"-fplugin={plugin}", "-fsyntax-only", *FLAGS, source], runs)
        plain_total += plain
        plugin_total += with_plugin
        print(f"| {os.path.basename(source)} | {plain:.2f} | {with_plugin:.2f} | {100 * (with_plugin / plain - 1):+.1f} % |")
    print(f"| all | {plain_total:.2f} | {plugin_total:.2f} | {100 * (plugin_total / plain_total - 1):+.1f} % |\n")
    lint = best(["build/qlint", "cxx", "-p", "build", *examples], 1)
    print(f"`qlint cxx -p build` over the {len(examples)} examples: {lint:.1f} CPU s "
          f"({lint / len(examples):.1f} s per file)")


if __name__ == "__main__":
    main()
