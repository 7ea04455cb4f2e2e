"""Checks the new fake quants `qlint --fix` put into a traced QAT model, with PyTorch itself.

    check_new_fake_quants.py FIXED.pt INPUT.pt SIMULATED.pt [--masks N] [--calibrated-on-input I ...]

- PyTorch's own forward of the fixed model (every fake quant on, the new ones included) gives
  SIMULATED.pt, the outputs `qlint sim --save-outputs` saved for it, bit for bit: what qlint
  reports about the fix is what PyTorch computes;
- exactly N of the new fake quants (those with a float constant scale in forward's graph) have scale 1
  and zero point 0, and PyTorch's fake_quantize_per_tensor_affine keeps 0 and 1 exact there;
- for each model input I (0-based, after self), a new fake quant quantizes that input with the
  scale and zero point PyTorch's MinMaxObserver (per_tensor_symmetric, over the input, with the
  fake quant's quant_min and quant_max) computes.
Prints the new fake quants; exits non-zero with one line saying what broke.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "sim"))
from reference import tensors  # noqa: E402  tests/sim/reference.py


def option_values(args, name):
    return [int(args[i + 1]) for i, a in enumerate(args) if a == name]


def new_fake_quants(graph):
    """(input value, scale, zero point, quant_min, quant_max) of each fake quant whose scale is a
    Python float in the graph (a FakeQuantize module passes its scale buffer, a tensor)."""
    found = []
    for node in graph.nodes():
        if node.kind() != "aten::fake_quantize_per_tensor_affine":
            continue
        inputs = list(node.inputs())
        if inputs[1].type().kind() != "FloatType" or inputs[1].node().kind() != "prim::Constant":
            continue
        scale, zero_point, quant_min, quant_max = (v.toIValue() for v in inputs[1:5])
        found.append((inputs[0], scale, zero_point, quant_min, quant_max))
    return found


def observer_qparams(x, quant_min, quant_max):
    dtype = torch.qint8 if quant_min < 0 else torch.quint8
    if quant_max - quant_min > 255:
        dtype = torch.qint32
    observer = torch.ao.quantization.MinMaxObserver(dtype=dtype, qscheme=torch.per_tensor_symmetric,
                                                    quant_min=quant_min, quant_max=quant_max)
    observer(x)
    scale, zero_point = observer.calculate_qparams()
    return float(scale), int(zero_point)


def main():
    args = sys.argv[1:]
    fixed_path, input_path, simulated_path = args[:3]
    masks = option_values(args, "--masks")
    calibrated_inputs = option_values(args, "--calibrated-on-input")
    fixed = torch.jit.load(fixed_path)
    example = torch.load(input_path)
    example = tuple(example) if isinstance(example, (tuple, list)) else (example,)

    with torch.no_grad():
        actual = tensors(fixed(*example))
    expected = tensors(torch.load(simulated_path))
    if len(actual) != len(expected) or not all(torch.equal(a, e) for a, e in zip(actual, expected)):
        sys.exit("PyTorch's forward of the fixed model differs from qlint's simulation of it")

    graph_inputs = list(fixed.graph.inputs())[1:]
    points = new_fake_quants(fixed.graph)
    for value, scale, zero_point, quant_min, quant_max in points:
        print(f"%{value.debugName()}: scale {scale!r}, zero point {zero_point}, range {quant_min}..{quant_max}")

    exact = [p for p in points if p[1] == 1.0 and p[2] == 0]
    if masks and len(exact) != masks[0]:
        sys.exit(f"{len(exact)} new fake quants at scale 1, expected {masks[0]}")
    for _, scale, zero_point, quant_min, quant_max in exact:
        zero_one = torch.tensor([0.0, 1.0])
        if not torch.equal(torch.fake_quantize_per_tensor_affine(zero_one, scale, zero_point, quant_min, quant_max),
                           zero_one):
            sys.exit(f"0 and 1 are not exact at scale {scale}, range {quant_min}..{quant_max}")

    for index in calibrated_inputs:
        on_input = [p for p in points if p[0] is graph_inputs[index]]
        if len(on_input) != 1:
            sys.exit(f"{len(on_input)} new fake quants on input {index}, expected 1")
        _, scale, zero_point, quant_min, quant_max = on_input[0]
        reference = observer_qparams(example[index], quant_min, quant_max)
        if (scale, zero_point) != reference:
            sys.exit(f"input {index}: scale {scale!r}, zero point {zero_point}; MinMaxObserver gives "
                     f"{reference[0]!r}, {reference[1]}")


if __name__ == "__main__":
    main()
