"""Export qlint's example models to TorchScript.

Each example is a Python file defining `Model` (an nn.Module) and `example_input()` (the input
tensor, or a tuple of tensors). An example that is not simply scripted (a traced QAT model)
defines `build()` returning the TorchScript module to save instead. For every file this writes `<stem>.pt` (torch.jit.script(...)
.save) into --out and `<stem>.pt` (torch.save of the example input) into --inputs, a separate
directory so that linting a models directory does not pick up inputs.

With --fx, it writes `<stem>.fx.json` instead, the FX graph as python/qlint_fx.py exports it
(with the example input, so every value's dtype is recorded), then touches --stamp. Examples
that torch.fx cannot trace say so with `FX_TRACEABLE = False`; traced QAT examples (`build()`)
are skipped.

Each example is exported in a process of its own, forked from this one before it traces
anything: torch.fx names the code it generates `<eval_with_key>.N` by a per-process count, and
FX-made archives keep that name in their source ranges, so an example's archive must not depend
on the examples exported before it.

Run with Debian's Python, which has torch:
    /usr/bin/python3 examples/export.py --out DIR --inputs DIR FILES
    /usr/bin/python3 examples/export.py --fx --out DIR --stamp FILE FILES
"""
import argparse
import importlib.util
import multiprocessing
import os
import sys

import torch

# Examples share helpers (the seed input) from examples/common; the FX exporter is python/.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(_HERE, "common"))
sys.path.insert(0, os.path.join(os.path.dirname(_HERE), "python"))


def load_example(path, suffix=""):
    """The example at `path` as a module. TorchScript compiles a class once per qualified name, so
    a second copy of an example in one process (a patched one) needs a `suffix` of its own."""
    name = "qlint_example_" + os.path.splitext(os.path.basename(path))[0] + suffix
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # TorchScript looks classes up through their module
    spec.loader.exec_module(module)
    return module


def export(path, out_dir, inputs_dir):
    stem = os.path.splitext(os.path.basename(path))[0]
    example = load_example(os.path.abspath(path))
    # Seeded per example: a clean build must export the same weights and inputs every time, or a
    # test of a simulation's outcome would depend on the build's luck.
    torch.manual_seed(0)
    if hasattr(example, "build"):
        scripted = example.build()
    else:
        scripted = torch.jit.script(example.Model().eval())
    scripted.save(os.path.join(out_dir, stem + ".pt"))
    torch.save(example.example_input(), os.path.join(inputs_dir, stem + ".pt"))


def example_input_tuple(example):
    value = example.example_input()
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def export_fx(path, out_dir):
    import qlint_fx
    example = load_example(os.path.abspath(path))
    if hasattr(example, "build") or not getattr(example, "FX_TRACEABLE", True):
        return
    stem = os.path.splitext(os.path.basename(path))[0]
    torch.manual_seed(0)
    qlint_fx.export(example.Model().eval(), os.path.join(out_dir, stem + ".fx.json"), example_input_tuple(example))


def in_own_process(export_one, path, *args):
    """Runs one example's export in a forked child of this process, which has traced nothing.
    torch.fx names the code it generates `<eval_with_key>.N` from a process-wide counter, and
    FX-made archives keep that name in their source ranges: in a child, each example's counter
    starts where every other example's does, so its archive (and what qlint reports on it)
    does not depend on which examples were exported before it."""
    child = multiprocessing.get_context("fork").Process(target=export_one, args=(path, *args))
    child.start()
    child.join()
    if child.exitcode != 0:
        sys.exit(f"export.py: exporting {path} failed")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--inputs", help="output directory for example inputs (TorchScript export)")
    parser.add_argument("--fx", action="store_true", help="export FX graphs (.fx.json) instead")
    parser.add_argument("--stamp", help="with --fx: a file to touch when done")
    parser.add_argument("sources", nargs="+", help="example .py files")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.fx:
        for path in args.sources:
            in_own_process(export_fx, path, args.out)
        if args.stamp:
            with open(args.stamp, "w"):
                pass
        return
    if not args.inputs:
        parser.error("--inputs is required for the TorchScript export")
    os.makedirs(args.inputs, exist_ok=True)
    for path in args.sources:
        in_own_process(export, path, args.out, args.inputs)


if __name__ == "__main__":
    main()
