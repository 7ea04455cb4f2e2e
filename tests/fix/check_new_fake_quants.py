"""Checks the new fake quants `qlint --fix` put into a traced QAT model, with PyTorch itself.

    check_new_fake_quants.py ORIGINAL.pt FIXED.pt INPUT.pt SIMULATED.pt [--masks N]
                             [--calibrated-on-input I ...] [--modules] [--reobserve]

- PyTorch's own forward of the fixed model (every fake quant on, the new ones included) gives
  SIMULATED.pt, the outputs `qlint sim --save-outputs` saved for it, bit for bit: what qlint
  reports about the fix is what PyTorch computes;
- the new fake quants are the FakeQuantize modules the fixed model has and the original has not
  (each a clone of one of the model's own, called in forward), and fake quantize ops with a
  Python float scale in forward's graph; with --modules every one of them is a module;
- exactly N of them have scale 1 and zero point 0, and PyTorch's fake quantization keeps 0
  and 1 exact there;
- for each model input I (0-based, after self), a new fake quant quantizes that input with the
  scale and zero point PyTorch's MinMaxObserver (per_tensor_symmetric, over the input, with the
  fake quant's quant_min and quant_max) computes, or for a clone of a fused fake quant (which
  computes its scale from its running range in the model's own scheme) what that op computes
  observing the input afresh; a cloned module's observer starts from
  the input's range;
- with --reobserve, each new fused FakeQuantize observes afresh in PyTorch (observer on, running
  range reset) what the fixed model's forward passes it, and computes the scale and zero point
  qlint gave it: for values computed inside the model (a count cast to float, a grid coordinate
  times the voxel size), which no model input shows. (Their operands come from the inputs
  alone here, so the run with fake quantization on passes them what qlint's float run saw.)
Prints the new fake quants; exits non-zero with one line saying what broke.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "sim"))
from reference import tensors  # noqa: E402  tests/sim/reference.py


def option_values(args, name):
    return [int(args[i + 1]) for i, a in enumerate(args) if a == name]


QUANT_RANGE_OPERANDS = {"aten::fake_quantize_per_tensor_affine": (3, 4), "aten::fused_moving_avg_obs_fake_quant": (8, 9)}


def new_fake_quant_ops(graph):
    """(input value, scale, zero point, quant_min, quant_max, None) of each fake quant whose scale is
    a Python float in the graph (a FakeQuantize module passes its scale buffer, a tensor)."""
    found = []
    for node in graph.nodes():
        if node.kind() != "aten::fake_quantize_per_tensor_affine":
            continue
        inputs = list(node.inputs())
        if inputs[1].type().kind() != "FloatType" or inputs[1].node().kind() != "prim::Constant":
            continue
        scale, zero_point, quant_min, quant_max = (v.toIValue() for v in inputs[1:5])
        found.append((inputs[0], scale, zero_point, quant_min, quant_max, None))
    return found


def quant_range(module):
    """quant_min and quant_max of a traced FakeQuantize: constants of the op in its forward."""
    for kind, (low, high) in QUANT_RANGE_OPERANDS.items():
        for node in module.graph.findAllNodes(kind):
            inputs = list(node.inputs())
            return inputs[low].toIValue(), inputs[high].toIValue()
    sys.exit("a new FakeQuantize module has no fake quantize op in its forward")


def new_fake_quant_modules(original, fixed):
    """(input value, scale, zero point, quant_min, quant_max, module) of each module of the fixed
    model that the original lacks, with the value forward passes to it."""
    old = {name for name, _ in original.named_modules()}
    modules = dict(fixed.named_modules())
    found = []
    for name, module in modules.items():
        if name in old or not any(n == "scale" for n, _ in module.named_buffers(recurse=False)):
            continue
        owner, _, attribute = name.rpartition(".")
        calls = [node for node in modules[owner].graph.findAllNodes("prim::CallMethod")
                 if node.inputsAt(0).node().kind() == "prim::GetAttr" and node.inputsAt(0).node().s("name") == attribute]
        if len(calls) != 1:
            sys.exit(f"new module {name} is called {len(calls)} times in forward, expected once")
        quant_min, quant_max = quant_range(module)
        found.append((calls[0].inputsAt(1), float(module.scale), int(module.zero_point), quant_min, quant_max, module))
    return found


def fused_observer_qparams(module, x, quant_min, quant_max):
    """What PyTorch's fused fake quant (the default qconfig's: it observes and computes its scale
    in one op, in the scheme the traced op names) computes for `x` alone, observed fresh."""
    node = module.graph.findNode("aten::fused_moving_avg_obs_fake_quant")
    symmetric = list(node.inputs())[-1].toIValue()
    scale, zero_point = torch.tensor([1.0]), torch.tensor([0], dtype=torch.int32)
    torch.fused_moving_avg_obs_fake_quant(x, torch.tensor([1]), torch.tensor([1]), torch.tensor(float("inf")),
                                          torch.tensor(float("-inf")), scale, zero_point, 0.01, quant_min, quant_max,
                                          -1, False, symmetric)
    return float(scale), int(zero_point)


def observer_qparams(x, quant_min, quant_max):
    dtype = torch.qint8 if quant_min < 0 else torch.quint8
    if quant_max - quant_min > 255:
        dtype = torch.qint32
    observer = torch.ao.quantization.MinMaxObserver(dtype=dtype, qscheme=torch.per_tensor_symmetric,
                                                    quant_min=quant_min, quant_max=quant_max)
    observer(x)
    scale, zero_point = observer.calculate_qparams()
    return float(scale), int(zero_point)


def reobserve(original_path, fixed_path, example):
    """Lets each new fused fake quant not at a mask's scale 1 observe its value afresh in PyTorch
    and compares the scale and zero point it computes with qlint's."""
    old = {name for name, _ in torch.jit.load(original_path).named_modules()}
    given = {name: (float(m.scale), int(m.zero_point)) for name, m in torch.jit.load(fixed_path).named_modules()
             if name not in old and hasattr(m, "scale") and float(m.scale) != 1.0}
    model = torch.jit.load(fixed_path)
    modules = dict(model.named_modules())
    for name in given:
        module = modules[name]
        if module.graph.findNode("aten::fused_moving_avg_obs_fake_quant") is None:
            sys.exit(f"--reobserve: {name} is not a fused fake quant")
        module.observer_enabled.fill_(1)
        module.activation_post_process.min_val.fill_(float("inf"))
        module.activation_post_process.max_val.fill_(float("-inf"))
    with torch.no_grad():
        model(*example)
    for name, expected in given.items():
        observed = (float(modules[name].scale), int(modules[name].zero_point))
        if observed != expected:
            sys.exit(f"{name}: qlint gave scale {expected[0]!r}, zero point {expected[1]}; observing its value "
                     f"PyTorch computes {observed[0]!r}, {observed[1]}")
        print(f"{name}: PyTorch observes scale {observed[0]!r}, zero point {observed[1]}, as qlint gave")
    if not given:
        sys.exit("--reobserve: no new fake quant with a calibrated scale")


def main():
    args = sys.argv[1:]
    original_path, fixed_path, input_path, simulated_path = args[:4]
    masks = option_values(args, "--masks")
    calibrated_inputs = option_values(args, "--calibrated-on-input")
    original = torch.jit.load(original_path)
    fixed = torch.jit.load(fixed_path)
    example = torch.load(input_path)
    example = tuple(example) if isinstance(example, (tuple, list)) else (example,)

    with torch.no_grad():
        actual = tensors(fixed(*example))
    expected = tensors(torch.load(simulated_path))
    if len(actual) != len(expected) or not all(torch.equal(a, e) for a, e in zip(actual, expected)):
        sys.exit("PyTorch's forward of the fixed model differs from qlint's simulation of it")

    graph_inputs = list(fixed.graph.inputs())[1:]
    ops = new_fake_quant_ops(fixed.graph)
    if "--modules" in args and ops:
        sys.exit(f"{len(ops)} new fake quants are graph ops, expected FakeQuantize modules")
    points = ops + new_fake_quant_modules(original, fixed)
    for value, scale, zero_point, quant_min, quant_max, module in points:
        kind = "module" if module is not None else "op"
        print(f"%{value.debugName()}: {kind}, scale {scale!r}, zero point {zero_point}, range {quant_min}..{quant_max}")

    exact = [p for p in points if p[1] == 1.0 and p[2] == 0]
    if masks and len(exact) != masks[0]:
        sys.exit(f"{len(exact)} new fake quants at scale 1, expected {masks[0]}")
    for _, scale, zero_point, quant_min, quant_max, _ in exact:
        zero_one = torch.tensor([0.0, 1.0])
        if not torch.equal(torch.fake_quantize_per_tensor_affine(zero_one, scale, zero_point, quant_min, quant_max),
                           zero_one):
            sys.exit(f"0 and 1 are not exact at scale {scale}, range {quant_min}..{quant_max}")

    if "--reobserve" in args:
        reobserve(original_path, fixed_path, example)

    for index in calibrated_inputs:
        on_input = [p for p in points if p[0] is graph_inputs[index]]
        if len(on_input) != 1:
            sys.exit(f"{len(on_input)} new fake quants on input {index}, expected 1")
        _, scale, zero_point, quant_min, quant_max, module = on_input[0]
        fused = module is not None and module.graph.findNode("aten::fused_moving_avg_obs_fake_quant") is not None
        reference = (fused_observer_qparams(module, example[index], quant_min, quant_max) if fused
                     else observer_qparams(example[index], quant_min, quant_max))
        if (scale, zero_point) != reference:
            sys.exit(f"input {index}: scale {scale!r}, zero point {zero_point}; MinMaxObserver gives "
                     f"{reference[0]!r}, {reference[1]}")
        if module is not None:
            observed = (float(module.activation_post_process.min_val), float(module.activation_post_process.max_val))
            if observed != (float(example[index].min()), float(example[index].max())):
                sys.exit(f"input {index}: the new module's observer starts at {observed}, not at the input's range")


if __name__ == "__main__":
    main()
