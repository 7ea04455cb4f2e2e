"""Export qlint's example models to TorchScript.

Each example is a Python file defining `Model` (an nn.Module) and `example_input()` (the input
tensor, or a tuple of tensors). An example that is not simply scripted (a traced QAT model)
defines `build()` returning the TorchScript module to save instead. For every file this writes `<stem>.pt` (torch.jit.script(...)
.save) into --out and `<stem>.pt` (torch.save of the example input) into --inputs, a separate
directory so that linting a models directory does not pick up inputs.

Run with Debian's Python, which has torch:
    /usr/bin/python3 examples/export.py --out DIR --inputs DIR FILES
"""
import argparse
import importlib.util
import os
import sys

import torch

# Examples share helpers (the seed input) from examples/common.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "common"))


def load_example(path):
    name = "qlint_example_" + os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # TorchScript looks classes up through their module
    spec.loader.exec_module(module)
    return module


def export(path, out_dir, inputs_dir):
    stem = os.path.splitext(os.path.basename(path))[0]
    example = load_example(os.path.abspath(path))
    if hasattr(example, "build"):
        scripted = example.build()
    else:
        scripted = torch.jit.script(example.Model().eval())
    scripted.save(os.path.join(out_dir, stem + ".pt"))
    torch.save(example.example_input(), os.path.join(inputs_dir, stem + ".pt"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--inputs", required=True, help="output directory for example inputs")
    parser.add_argument("sources", nargs="+", help="example .py files")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.inputs, exist_ok=True)
    for path in args.sources:
        export(path, args.out, args.inputs)


if __name__ == "__main__":
    main()
