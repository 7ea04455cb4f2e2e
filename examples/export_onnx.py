"""Export example models as QAT models in ONNX, for the ONNX front end's tests (docs/onnx.md).

For every example file (a `Model` and an `example_input()`, as examples/export.py reads them) this
prepares the model for eager-mode QAT with an int8 FakeQuantize, calibrates it on the example
input, turns its observers off and writes, from that one prepared model:
- <stem>.onnx: torch.onnx.export(..., opset_version=13, verbose=True), the QDQ model accelerator
  toolchains take, with each node's Python stack in its doc_string;
- <stem>.pt: the same model traced (torch.jit.trace), the archive qlint's findings on the ONNX
  model are compared with;
- <stem>.pt in --inputs: the example input.

PyTorch 1.13 exports only 8-bit fake quants to ONNX (QuantizeLinear takes int8 and uint8), and not
the default QAT qconfig's FusedMovingAvgObsFakeQuantize, hence the plain int8 FakeQuantize.
Examples that define `build()` (already traced) or that ONNX cannot export (`ONNX_EXPORTABLE =
False`, with the reason) are skipped; any other failure fails the build.

Run with Debian's Python, which has torch:
    /usr/bin/python3 examples/export_onnx.py --out DIR --inputs DIR --stamp FILE FILES
"""
import argparse
import contextlib
import os
import sys

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(_HERE, "common"))
sys.path.insert(0, _HERE)

from export import example_input_tuple, in_own_process, load_example  # noqa: E402
from qat import INT8_FAKE_QUANT  # noqa: E402


def prepared_qat_model(example):
    """The example's model after prepare_qat with int8 FakeQuantize, calibrated, observers off."""
    from torch.ao.quantization import QConfig, disable_observer, prepare_qat
    model = example.Model()
    model.qconfig = QConfig(activation=INT8_FAKE_QUANT, weight=INT8_FAKE_QUANT)
    model.train()
    prepare_qat(model, inplace=True)
    with torch.no_grad():
        model(*example_input_tuple(example))
    model.apply(disable_observer)
    return model.eval()


@contextlib.contextmanager
def quiet():
    """Standard output and error of this process (LibTorch's C++ writes to them) go nowhere;
    exceptions still reach the caller."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 1)
        os.dup2(devnull.fileno(), 2)
    try:
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved:
            os.close(fd)


def register_logical_not():
    """PyTorch 1.13 has no ONNX symbolic for `torch.logical_not` (the seeds S2 to S4 use it): it
    is ONNX's `Not`, registered as a user would."""
    torch.onnx.register_custom_op_symbolic("aten::logical_not", lambda g, x: g.op("Not", x), 13)


def export(path, out_dir, inputs_dir):
    example = load_example(os.path.abspath(path))
    if hasattr(example, "build") or not getattr(example, "ONNX_EXPORTABLE", True):
        return
    stem = os.path.splitext(os.path.basename(path))[0]
    torch.manual_seed(0)  # the same weights and inputs on every build
    model = prepared_qat_model(example)
    args = example_input_tuple(example)
    # verbose=True puts each node's Python stack into its doc_string, and prints the graph.
    with quiet():
        torch.onnx.export(model, args, os.path.join(out_dir, stem + ".onnx"), opset_version=13, verbose=True)
    torch.jit.trace(model, args, strict=False).save(os.path.join(out_dir, stem + ".pt"))
    torch.save(example.example_input(), os.path.join(inputs_dir, stem + ".pt"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="output directory (.onnx and traced .pt)")
    parser.add_argument("--inputs", required=True, help="output directory for the example inputs")
    parser.add_argument("--stamp", required=True, help="a file to touch when done")
    parser.add_argument("sources", nargs="+", help="example .py files")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.inputs, exist_ok=True)
    register_logical_not()
    for path in args.sources:
        in_own_process(export, path, args.out, args.inputs)
    with open(args.stamp, "w"):
        pass


if __name__ == "__main__":
    main()
