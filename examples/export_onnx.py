"""Export example models as QAT models in ONNX, for the ONNX front end's tests (docs/onnx.md).

For every example file (a `Model` and an `example_input()`, as examples/export.py reads them) this
prepares the model for eager-mode QAT with an int8 FakeQuantize, calibrates it on the example
input, turns its observers off (python/qlint_onnx.py's prepare_int8_qat) and writes, from that one
prepared model:
- <stem>.onnx: qlint_onnx.export (torch.onnx.export with opset 13 and verbose=True), the QDQ model
  accelerator toolchains take, with each node's Python stack in its doc_string;
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
import os
import sys

import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(_HERE, "common"))
sys.path.insert(0, _HERE)
sys.path.insert(0, os.path.join(os.path.dirname(_HERE), "python"))

import qlint_onnx  # noqa: E402  (python/qlint_onnx.py: the export users run too)
from export import example_input_tuple, in_own_process, load_example  # noqa: E402


def export(path, out_dir, inputs_dir):
    example = load_example(os.path.abspath(path))
    if hasattr(example, "build") or not getattr(example, "ONNX_EXPORTABLE", True):
        return
    stem = os.path.splitext(os.path.basename(path))[0]
    torch.manual_seed(0)  # the same weights and inputs on every build
    model = example.Model()
    args = example_input_tuple(example)
    model = qlint_onnx.prepare_int8_qat(model, args)
    qlint_onnx.export(model, args, os.path.join(out_dir, stem + ".onnx"))
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
    for path in args.sources:
        in_own_process(export, path, args.out, args.inputs)
    with open(args.stamp, "w"):
        pass


if __name__ == "__main__":
    main()
