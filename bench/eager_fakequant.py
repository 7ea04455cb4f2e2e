"""PyTorch eager fake-quant of one model, timed per batch, for qlint's simulator benchmark.

    eager_fakequant.py MODEL SHAPES BATCHES
MODEL is an example .py file (with Model) or torchvision:<name>; SHAPES like 1x3x224x224.
Each batch runs what `qlint sim` runs: a float forward that calibrates PyTorch's MinMaxObserver
at every QuantStub, then a forward with torch.fake_quantize_per_tensor_affine there. Prints
the mean milliseconds per batch.
"""
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "sim"))
import reference  # tests/sim/reference.py: the same stubs the bit-exactness tests use


def build(spec):
    if spec.startswith("torchvision:"):
        from torchvision.models import quantization as tvq
        return getattr(tvq, spec.split(":", 1)[1])(weights=None, quantize=False)
    return reference.load_example(spec).Model()


def main():
    spec, shapes, batches = sys.argv[1], sys.argv[2], int(sys.argv[3])
    torch.manual_seed(0)
    model = build(spec).eval()
    stubs = reference.replace_stubs(model, 16)
    inputs = [torch.randn([int(d) for d in s.split("x")]) for s in shapes.split(",")]
    with torch.no_grad():
        model(*inputs)  # warm-up
        start = time.perf_counter()
        for _ in range(batches):
            for stub in stubs:
                stub.calibrating = True
            model(*inputs)
            for stub in stubs:
                stub.calibrating = False
            model(*inputs)
        elapsed = time.perf_counter() - start
    print(f"{1000.0 * elapsed / batches:.3f}")


if __name__ == "__main__":
    main()
