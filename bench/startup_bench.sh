#!/usr/bin/env bash
# Prints how long qlint takes, end to end, for commands users run often: the median of N runs
# (default 9) of the real binary, in milliseconds. No test asserts these; docs/benchmarks.md
# records them.
#   bench/startup_bench.sh [N]      (from the repository root, after scripts/setup)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-9}
qlint=build/qlint

median_ms() {
  local times=()
  for _ in $(seq "$runs"); do
    local start end
    start=$(date +%s%N)
    "$@" > /dev/null 2>&1 || true
    end=$(date +%s%N)
    times+=($(((end - start) / 1000000)))
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p"
}

printf '| command | median ms (of %s) |\n|---|---:|\n' "$runs"
row() { printf '| `%s` | %s |\n' "$1" "$(median_ms "${@:2}")"; }
row "qlint --version" $qlint --version
row "qlint rules" $qlint rules
row "qlint check s1_eq_one.fx.json (FX)" $qlint check --isolated build/examples/fx/seed/s1_eq_one.fx.json
row "qlint check s1_eq_one.pt (TorchScript)" $qlint check --isolated build/examples/seed/s1_eq_one.pt
row "qlint check mobilenet_v2.fx.json (FX)" $qlint check --isolated build/examples/fx/torchvision/mobilenet_v2.fx.json
row "qlint check mobilenet_v2.pt (TorchScript)" $qlint check --isolated build/examples/torchvision/mobilenet_v2.pt
row "qlint check build/examples/fx (22 FX exports)" $qlint check --isolated build/examples/fx
row "qlint check build/examples/seed (7 archives)" $qlint check --isolated build/examples/seed
