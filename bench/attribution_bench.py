"""Attribution's cost on torchvision's mobilenet_v2 with one injected hazard.

    /usr/bin/python3 bench/attribution_bench.py [QLINT]

Builds torchvision's quantizable mobilenet_v2 (random weights), prepared for QAT with PyTorch's
default qnnpack qconfig, calibrated on a few random batches and traced: a model whose every
activation has a FakeQuantize, the quant points of `qlint sim`. The logits' FakeQuantize, the
last of them, gets a scale 100 times its calibrated one in the archive (the injected hazard:
the logits keep about 2 of their 8 bits), and qlint must find it among all of them. (With random
weights, a hazard further up barely moves the logits, which the biases dominate.) Prints the quant point count N, then for `qlint sim --attribute`
(binary search) the passes it used, the goal 2 log2(N) + 2, whether its first cause is the
injected point, and its wall time; and for `qlint sim --sensitivity`, which quantizes every point
alone and leaves every point out (the naive sweep, 2N passes), its wall time. Medians of 3 runs.
"""
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch
from torch.ao.quantization import get_default_qat_qconfig, prepare_qat
from torchvision.models import quantization as tvq

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QLINT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "build", "qlint")
INJECTED = "classifier.1.activation_post_process"  # the logits' FakeQuantize


def build(directory, inject=True):
    torch.manual_seed(0)
    torch.backends.quantized.engine = "qnnpack"
    model = tvq.mobilenet_v2(weights=None, quantize=False)
    model.train()
    model.fuse_model(is_qat=True)
    model.qconfig = get_default_qat_qconfig("qnnpack")
    prepare_qat(model, inplace=True)
    with torch.no_grad():
        for _ in range(4):
            model(torch.randn(2, 3, 224, 224))
    model.eval()
    example = torch.randn(1, 3, 224, 224)
    traced = torch.jit.trace(model, example, check_trace=False)
    if inject:  # in the archive, after the trace: tracing runs the fake quants' observers
        dict(traced.named_buffers())[INJECTED + ".scale"].mul_(100.0)
    stem = "mobilenet_v2_qat" + ("_injected" if inject else "")
    archive, inputs = os.path.join(directory, stem + ".pt"), os.path.join(directory, "input.pt")
    traced.save(archive)
    torch.save(example, inputs)
    return archive, inputs


def timed(args):
    start = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(args)} failed: {done.stderr.strip()}")
    return elapsed, json.loads(done.stdout)


def median_run(args, runs=3):
    results = [timed(args) for _ in range(runs)]
    return statistics.median(r[0] for r in results), results[0][1]


def main():
    with tempfile.TemporaryDirectory() as directory:
        archive, inputs = build(directory)
        base = [QLINT, "sim", archive, "--input", inputs, "--format", "json"]
        plain_time, plain = median_run(base)
        points = len(plain["quant_points"])
        attr_time, report = median_run(base + ["--attribute"])
        divergences = report["attribution"]["divergences"]
        print(f"mobilenet_v2, traced after prepare_qat: N = {points} quant points, injected at {INJECTED}")
        print(f"  qlint sim (one calibrated and one simulated pass): {plain_time:.2f} s")
        if not divergences:
            print("  --attribute: no divergence found (the injected hazard did not show)")
            return
        for d in divergences:
            first = d["causes"][0]["path"] if d["causes"] else "(none)"
            print(f"  --attribute, {d.get('output', d.get('node'))} at {d['measure']} dB: "
                  f"{d['passes']} passes (goal <= {2 * math.log2(points) + 2:.1f}), first cause {first}"
                  f"{' (the injected point)' if first == INJECTED else ''}")
        print(f"  --attribute in all: {report['attribution']['passes']} passes, {attr_time:.2f} s "
              f"({attr_time - plain_time:.2f} s beyond the plain run)")
        sweep_time, _ = median_run(base + ["--sensitivity"], runs=1)
        print(f"  --sensitivity (naive sweep, {2 * points} passes): {sweep_time:.2f} s "
              f"({sweep_time - plain_time:.2f} s beyond the plain run)")


if __name__ == "__main__":
    main()
