#!/usr/bin/python3
"""`qlint check` against the floor a TorchScript linter in C++ cannot go below.

The floor is build/qlint_load_floor (bench/load_floor.cpp): LibTorch's start-up and
torch::jit::load of each archive, nothing else. In one run, alternating so that a change of the
machine's load hits every column alike, N times each (whole processes, wall time, medians):

- the floor and `qlint check` on one archive (mobilenet_v2);
- the floor and `qlint check -j 1` on 12 archives (5 torchvision networks, 7 seed models), and
  `qlint check -j 2` on them;

then, N times with QLINT_TIMINGS=1, where qlint's time goes per phase (medians) (probe and safety checks,
torch::jit::load, import, analysis, rules, output), and its own work (everything but the load)
against the load, on mobilenet_v2, on the 12 and on 6 point-cloud models of the zoo. With `--before DIR`, the qlint binary in DIR (an
older build: its `qlint` and `libqlint_torch.so`) is timed in the same rounds, for a before and
after on the same machine in one run. Run from the repository root after scripts/setup, on an
idle machine:

    /usr/bin/python3 bench/check_bench.py [N] [--before DIR]      # default N = 7
"""
import os
import pathlib
import re
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
QLINT = ROOT / "build" / "qlint"
FLOOR = ROOT / "build" / "qlint_load_floor"
TORCHVISION = ["mobilenet_v2", "mobilenet_v3_large", "resnet18", "googlenet", "shufflenet_v2_x0_5"]
SEEDS = ["s1_eq_one", "s1_in_child", "s2_logical_not", "s3_mask_stub", "s4_shared_scale", "s5_tiny_data",
         "s6_separate_stubs"]
ONE = [str(ROOT / "build/examples/torchvision/mobilenet_v2.pt")]
TWELVE = [str(ROOT / f"build/examples/torchvision/{n}.pt") for n in TORCHVISION] + \
         [str(ROOT / f"build/examples/seed/{n}.pt") for n in SEEDS]
# Point-cloud and detection-stage models of the zoo (farthest-point sampling, ball queries, a
# staged dict of voxels): loops and in-place writes, which torchvision's networks do not have.
ZOO = [str(ROOT / f"build/examples/zoo/{n}.pt") for n in
       ("farthest_point_sampling", "ball_query", "ball_query_levels", "set_abstraction_levels", "batch_dict_stages",
        "voxel_indices")]


def qlint(archives, jobs=1, binary=QLINT):
    return [str(binary), "check", "--isolated", "--format", "concise", "--exit-zero", "-j", str(jobs), *archives]


def floor(archives):
    return [str(FLOOR), *archives]


def wall_ms(command, env=None):
    start = time.perf_counter()
    run = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
    elapsed = (time.perf_counter() - start) * 1000
    if run.returncode != 0:
        sys.exit(f"{' '.join(command[:3])} ... failed ({run.returncode}): {run.stderr[-500:]}")
    return elapsed


def phases(archives, runs):
    """QLINT_TIMINGS's table, each phase's median over `runs` runs with -j 1: phase name -> ms."""
    tables = []
    for _ in range(runs):
        run = subprocess.run(qlint(archives), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             env=dict(os.environ, QLINT_TIMINGS="1"))
        tables.append({m.group(1).strip(): float(m.group(2))
                       for m in re.finditer(r"^  (.+?)\s+([\d.]+) ms$", run.stderr, re.M)})
    return {phase: statistics.median(t[phase] for t in tables) for phase in tables[0]}


def main():
    args = sys.argv[1:]
    before = None
    if "--before" in args:
        at = args.index("--before")
        before = pathlib.Path(args[at + 1]) / "qlint"
        del args[at:at + 2]
    runs = int(args[0]) if args else 7
    for path in [QLINT, FLOOR, *TWELVE]:
        if not pathlib.Path(path).exists():
            sys.exit(f"{path} is missing: run scripts/setup")
    columns = {
        "floor, 1 archive": floor(ONE),
        "qlint check, 1 archive": qlint(ONE),
        "floor, 12 archives": floor(TWELVE),
        "qlint check -j 1, 12 archives": qlint(TWELVE, 1),
        "qlint check -j 2, 12 archives": qlint(TWELVE, 2),
    }
    if before:
        columns.update({
            "before: qlint check, 1 archive": qlint(ONE, 1, before),
            "before: qlint check -j 1, 12 archives": qlint(TWELVE, 1, before),
            "before: qlint check -j 2, 12 archives": qlint(TWELVE, 2, before),
        })
    times = {name: [] for name in columns}
    for _ in range(runs):
        for name, command in columns.items():
            times[name].append(wall_ms(command))
    median = {name: statistics.median(t) for name, t in times.items()}
    print(f"| measurement (median of {runs}) | ms |")
    print("|---|---:|")
    for name, ms in median.items():
        print(f"| {name} | {ms:.0f} |")
    print()
    print(f"- 1 archive: qlint / floor = {median['qlint check, 1 archive'] / median['floor, 1 archive']:.2f}x")
    print(f"- 12 archives: qlint -j 1 / floor = "
          f"{median['qlint check -j 1, 12 archives'] / median['floor, 12 archives']:.2f}x")
    print(f"- 12 archives: -j 1 / -j 2 = "
          f"{median['qlint check -j 1, 12 archives'] / median['qlint check -j 2, 12 archives']:.2f}x")
    if before:
        print(f"- before: 1 archive {median['before: qlint check, 1 archive'] / median['floor, 1 archive']:.2f}x "
              f"the floor; 12 archives -j 1 "
              f"{median['before: qlint check -j 1, 12 archives'] / median['floor, 12 archives']:.2f}x the floor; "
              f"-j 1 / -j 2 = {median['before: qlint check -j 1, 12 archives'] / median['before: qlint check -j 2, 12 archives']:.2f}x")
    print()
    for name, archives in (("mobilenet_v2", ONE), ("12 archives", TWELVE), ("6 zoo point-cloud models", ZOO)):
        table = phases(archives, runs)
        load = table.get("torch::jit::load", 0.0)
        own = sum(ms for phase, ms in table.items() if phase not in ("torch::jit::load", "LibTorch start-up"))
        print(f"Phases, {name} (QLINT_TIMINGS=1, -j 1, medians of {runs}): " +
              ", ".join(f"{phase} {ms:.1f} ms" for phase, ms in table.items()))
        print(f"- own work {own:.1f} ms = {100 * own / load:.0f} % of torch::jit::load's {load:.1f} ms")


if __name__ == "__main__":
    main()
