"""qlint --fix on ONNX models, checked in ONNX Runtime (issue #23): the seed S1 exported as an int8
QAT model in ONNX, fixed by qlint, run in the runtime users deploy with.

    fix_test.py QLINT BUILD_DIR

- The fixed model passes ONNX's checker and shape inference, and keeps every field of the
  original: opset, metadata, graph inputs and outputs, every initializer, every node (rewired
  inputs aside).
- Float results are the original's, bit for bit: both models with their QDQ pairs taken out (each
  DequantizeLinear's output read from its QuantizeLinear's input) give identical outputs.
- The original's quantized output is all zeros (`x == 1` is never true once 1 is 0.949); the fixed
  model's is the float model's within int8 resolution (half the data's scale per element), and its
  SQNR against float is printed.
- A second --fix finds nothing, and `qlint check` reports nothing.
And on every exported ONNX example (build/examples/onnx/<set>): --fix -o writes a model that
passes ONNX's checker and ONNX Runtime runs on the example's input with float outputs
bit-identical to the original's, or writes nothing when it applies nothing; a second --fix on the
result applies nothing.
Run with Debian's /usr/bin/python3 (torch, onnx, numpy); node and tests/onnxruntime's
onnxruntime-node (npm ci) run the models.
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import torch
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
failures = []


def expect(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


def without_qdq(model):
    """The float model: every DequantizeLinear's output is its QuantizeLinear's input."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    nodes = {out: n for n in m.graph.node for out in n.output}
    rename = {}
    for n in m.graph.node:
        if n.op_type == "DequantizeLinear" and n.input[0] in nodes and nodes[n.input[0]].op_type == "QuantizeLinear":
            rename[n.output[0]] = nodes[n.input[0]].input[0]
    kept = [n for n in m.graph.node if n.op_type not in ("QuantizeLinear", "DequantizeLinear")]
    for n in kept:
        for i, name in enumerate(n.input):
            n.input[i] = rename.get(name, name)
    for out in m.graph.output:
        if out.name in rename:  # an output straight from a pair: an Identity keeps its name
            kept.append(onnx.helper.make_node("Identity", [rename[out.name]], [out.name]))
    del m.graph.node[:]
    m.graph.node.extend(kept)
    return m


def write_inputs(value, work):
    """The example input (a tensor or a tuple of tensors) as run.js reads it."""
    values = value if isinstance(value, (tuple, list)) else (value,)
    entries = []
    for i, t in enumerate(values):
        dtype = {torch.float32: "float32", torch.int64: "int64", torch.int32: "int32", torch.bool: "bool"}[t.dtype]
        t.numpy().astype({"float32": "<f4", "int64": "<i8", "int32": "<i4", "bool": "u1"}[dtype]).tofile(
            os.path.join(work, f"in{i}.bin"))
        entries.append({"shape": list(t.shape), "dtype": dtype, "file": f"in{i}.bin"})
    path = os.path.join(work, "inputs.json")
    with open(path, "w") as f:
        json.dump(entries, f)
    return path


def run(model_path, inputs_json):
    r = subprocess.run(["node", os.path.join(HERE, "run.js"), model_path, inputs_json], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"ONNX Runtime failed on {model_path}: {r.stderr}")
    outputs = json.loads(r.stdout)
    return {name: np.array(v["data"], dtype=np.float32).reshape(v["shape"]) for name, v in outputs.items()}


def sqnr_db(reference, value):
    noise = float(np.sum((reference.astype(np.float64) - value) ** 2))
    signal = float(np.sum(reference.astype(np.float64) ** 2))
    return math.inf if noise == 0 else 10 * math.log10(signal / noise)


def same_fields(original, fixed):
    for field in ("ir_version", "producer_name", "producer_version", "domain", "model_version", "doc_string"):
        expect(getattr(original, field) == getattr(fixed, field), f"the fixed model keeps {field}")
    expect(list(original.opset_import) == list(fixed.opset_import), "the fixed model keeps its opset")
    expect(list(original.metadata_props) == list(fixed.metadata_props), "the fixed model keeps its metadata")
    expect(list(original.graph.input) == list(fixed.graph.input), "the fixed model keeps its inputs")
    expect(list(original.graph.output) == list(fixed.graph.output), "the fixed model keeps its outputs")
    fixed_inits = {t.name: t for t in fixed.graph.initializer}
    for t in original.graph.initializer:
        expect(fixed_inits.get(t.name) == t, f"the fixed model keeps the initializer {t.name}")
    fixed_nodes = {n.name: n for n in fixed.graph.node}
    for n in original.graph.node:
        f = fixed_nodes.get(n.name)
        expect(f is not None and f.op_type == n.op_type and list(f.attribute) == list(n.attribute)
               and f.doc_string == n.doc_string and list(f.output) == list(n.output),
               f"the fixed model keeps the node {n.name}")


def every_example(qlint, build, work):
    root = os.path.join(build, "examples", "onnx")
    fixed_models = 0
    for example_set in sorted(os.listdir(root)):
        if example_set == "inputs" or not os.path.isdir(os.path.join(root, example_set)):
            continue
        for name in sorted(f for f in os.listdir(os.path.join(root, example_set)) if f.endswith(".onnx")):
            source = os.path.join(root, example_set, name)
            what = f"{example_set}/{name}"
            fixed = os.path.join(work, "fixed.onnx")
            if os.path.exists(fixed):
                os.remove(fixed)
            r = subprocess.run([qlint, "check", "--fix", "--format", "json", "-o", fixed, source], capture_output=True,
                               text=True)
            expect(r.returncode in (0, 1), f"{what}: --fix exits 0 or 1 (got {r.returncode}: {r.stderr})")
            applied = json.loads(r.stdout)["fixes"][0]["applied"] if r.stdout else []
            if not applied:
                expect(not os.path.exists(fixed), f"{what}: nothing applied, yet a file was written")
                continue
            fixed_models += 1
            model = onnx.load(fixed)
            onnx.checker.check_model(model)
            same_fields(onnx.load(source), model)
            inputs = write_inputs(torch.load(os.path.join(root, "inputs", example_set, name[:-5] + ".pt")), work)
            for label, m in (("a", without_qdq(onnx.load(source))), ("b", without_qdq(model))):
                onnx.save(m, os.path.join(work, label + ".onnx"))
            before = run(os.path.join(work, "a.onnx"), inputs)
            after = run(os.path.join(work, "b.onnx"), inputs)
            run(fixed, inputs)  # the fixed QDQ model runs too
            # A model that draws random numbers (farthest-point sampling's random start) draws other
            # ones in every run: its outputs are compared for shape only.
            draws = any(n.op_type.startswith("Random") or n.op_type in ("Multinomial", "Bernoulli")
                        for n in model.graph.node)
            same = list(before) == list(after) and all(
                before[k].shape == after[k].shape if draws else before[k].tobytes() == after[k].tobytes() for k in before)
            expect(same, f"{what}: float outputs bit-identical after --fix")
            again = subprocess.run([qlint, "check", "--fix", "--format", "json", "-o", os.path.join(work, "again.onnx"),
                                    fixed], capture_output=True, text=True)
            expect(again.stdout and not json.loads(again.stdout)["fixes"][0]["applied"],
                   f"{what}: a second --fix applies nothing")
    print(f"{fixed_models} example models fixed")
    expect(fixed_models >= 10, f"at least 10 example models have an ONNX fix (got {fixed_models})")


def main():
    qlint, build = sys.argv[1:3]
    work = tempfile.mkdtemp(prefix="qlint-onnx-fix-")
    try:
        source = os.path.join(build, "examples", "onnx", "seed", "s1_eq_one.onnx")
        model = os.path.join(work, "s1.onnx")
        shutil.copy(source, model)
        r = subprocess.run([qlint, "check", "--fix", model], capture_output=True, text=True)
        print(r.stdout + r.stderr)
        expect(r.returncode == 0, f"--fix exits 0 (got {r.returncode})")
        expect("Resolved 3 of 3 problems" in r.stdout, "--fix resolves the three findings of S1")

        original, fixed = onnx.load(source), onnx.load(model)
        onnx.checker.check_model(fixed)
        onnx.shape_inference.infer_shapes(fixed, strict_mode=True)
        same_fields(original, fixed)

        inputs = write_inputs(torch.load(os.path.join(build, "examples", "onnx", "inputs", "seed", "s1_eq_one.pt")),
                              work)
        for name, m in (("original_float", without_qdq(original)), ("fixed_float", without_qdq(fixed))):
            onnx.save(m, os.path.join(work, name + ".onnx"))
        out = {name: list(run(os.path.join(work, name + ".onnx") if name.endswith("_float") else path, inputs).values())[0]
               for name, path in (("original", source), ("fixed", model), ("original_float", None),
                                  ("fixed_float", None))}

        expect(out["original_float"].tobytes() == out["fixed_float"].tobytes(),
               "float outputs are bit-identical before and after the fix")
        expect(np.any(out["original_float"] != 0), "the float model's output is not all zeros")
        expect(np.all(out["original"] == 0), "S1 unfixed gives zeros in ONNX Runtime (the mask is never set)")
        scale = float(numpy_helper.to_array(
            next(t for t in original.graph.initializer if t.name == "quant.activation_post_process.scale")).reshape(-1)[0])
        error = float(np.max(np.abs(out["fixed"] - out["original_float"])))
        expect(error <= scale / 2 * (1 + 1e-6), f"fixed output within int8 resolution: max error {error} > {scale / 2}")
        print(f"SQNR against float: original {sqnr_db(out['original_float'], out['original']):.1f} dB, "
              f"fixed {sqnr_db(out['original_float'], out['fixed']):.1f} dB (max error {error:.4g}, scale {scale:.4g})")

        again = subprocess.run([qlint, "check", "--fix", model], capture_output=True, text=True)
        expect(again.returncode == 0 and "Nothing to fix" in again.stdout, f"a second --fix finds nothing: {again.stdout}")
        check = subprocess.run([qlint, "check", model], capture_output=True, text=True)
        expect(check.returncode == 0, f"qlint check reports nothing on the fixed model: {check.stdout}")
        every_example(qlint, build, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
