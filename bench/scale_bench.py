#!/usr/bin/env python3
"""How qlint's time grows with the number of uses (docs/benchmarks.md; never a test, issue #27).

Two generated inputs at 2,500, 10,000 and 20,000 uses, each timed as CPU seconds of the real
binary (the best of RUNS runs):
  - an FX export in which one QuantStub is applied to N inputs, each output compared with 1 and
    used as a mask on itself (every use a shared-stub-mask and an eq-nonzero-const finding, each
    fix naming a new stub: rules/stub_names.cpp);
  - a C++ file of N functions, each quantizing its input and using a slice of it as a mask
    (`qlint cxx`, rules/shared_stub_mask.cpp).
Linear growth shows as a constant time per use.

usage: bench/scale_bench.py [RUNS] [SIZES...]   (from the repository root, after scripts/setup)
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cxx_bench import best  # noqa: E402  (CPU seconds of the best run, as there)

QLINT = os.path.abspath("build/qlint")


def fx_one_stub(path, uses):
    def node(name, op, target, args, dtype="float32"):
        return {"name": name, "op": op, "target": target, "args": args, "kwargs": {}, "type": "Tensor",
                "dtype": dtype, "shape": [1, 4]}

    nodes, outputs = [], []
    for i in range(uses):
        nodes.append(node(f"x{i}", "placeholder", f"x{i}", []))
        nodes.append(node(f"q{i}", "call_module", "quant", [{"node": f"x{i}"}]))
        nodes.append(node(f"m{i}", "call_function", "_operator.getitem",
                          [{"node": f"q{i}"}, {"tuple": [{"slice": [None, None, None]}, -1]}]))
        nodes.append(node(f"e{i}", "call_function", "_operator.eq", [{"node": f"m{i}"}, 1], "bool"))
        nodes.append(node(f"y{i}", "call_function", "_operator.mul", [{"node": f"q{i}"}, {"node": f"e{i}"}]))
        outputs.append({"node": f"y{i}"})
    nodes.append({"name": "output", "op": "output", "target": "output", "args": [{"tuple": outputs}], "kwargs": {}})
    doc = {"format": "qlint-fx", "version": 1, "model_class": "OneStub",
           "modules": [{"path": "", "class": "OneStub"},
                       {"path": "quant", "class": "torch.ao.quantization.stubs.QuantStub"}],
           "nodes": nodes}
    with open(path, "w") as f:
        json.dump(doc, f)


def cxx_functions(path, count):
    with open(path, "w") as f:
        f.write("#include <torch/script.h>\nusing torch::indexing::Slice;\n")
        for i in range(count):
            f.write(f"torch::Tensor f{i}(const torch::Tensor& input) {{\n"
                    "  torch::Tensor x = torch::fake_quantize_per_tensor_affine(input, 0.01, 0, -32768, 32767);\n"
                    "  return x * (x.index({Slice(), -1}) == 1);\n}\n")


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    sizes = [int(s) for s in sys.argv[2:]] or [2500, 10000, 20000]
    pch = os.path.abspath("build/tests/cxx/torch.pch")
    flags = ["-std=c++17", "-I/usr/include/torch/csrc/api/include"] + (["-include-pch", pch] if os.path.exists(pch) else [])
    print(f"best of {runs} run(s), CPU seconds of the qlint process\n")
    print("| input | uses | CPU s | ms per use |")
    print("|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            fx = os.path.join(tmp, f"one_stub_{n}.fx.json")
            fx_one_stub(fx, n)
            t = best([QLINT, "check", "--format", "json", fx], runs)
            print(f"| FX, one stub applied N times (`qlint check`) | {n} | {t:.2f} | {1000 * t / n:.3f} |", flush=True)
        for n in sizes:
            cpp = os.path.join(tmp, f"functions_{n}.cpp")
            cxx_functions(cpp, n)
            t = best([QLINT, "cxx", cpp, "--", *flags], runs)
            print(f"| C++, N functions quantizing (`qlint cxx`) | {n} | {t:.2f} | {1000 * t / n:.3f} |", flush=True)


if __name__ == "__main__":
    main()
