"""Checks the guarantees of `qlint --fix` with PyTorch itself.

    check_fixed.py ORIGINAL.pt FIXED.pt INPUT.pt [--no-float | --fake-quant-off | --flags-off]
                   [--rewritten FN ...]

- the fixed model loads with torch.jit.load;
- its float outputs are bit-identical to the original's on INPUT and on three seeded random
  inputs of the same shapes (skipped with --no-float). A traced QAT model's forward is
  fake-quantized: with --fake-quant-off both models are compared in their float mode, every
  fake quantize op of every method (the model's own and any qlint added) taken out of the
  graphs by PyTorch's own graph API, so the check does not rest on qlint's simulator. With
  --flags-off they are compared as the user's own `disable_fake_quant` leaves them: every
  `fake_quant_enabled` buffer zeroed, which the default qconfig's fused fake quant honours at
  run time (a new fake quant that ignored the flag would make them differ);
- every parameter and buffer of the original is there, bit-identical;
- every module's forward that qlint did not list as rewritten (FN: "forward",
  "head.forward") has the same code as before.
Exits non-zero with one line saying what broke.
"""
import os
import copy
import sys

import torch

FAKE_QUANTIZE_OPS = ("aten::fake_quantize_per_tensor_affine", "aten::fused_moving_avg_obs_fake_quant",
                     "aten::fake_quantize_per_channel_affine")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "sim"))
from reference import tensors  # noqa: E402  tests/sim/reference.py


def fake_quant_off(module):
    """Takes every fake quantize op out of every method's graph: what a traced QAT model computes
    with fake quantization disabled (a trace keeps no switch for it). Returns how many."""
    count = 0
    for _, submodule in module.named_modules():
        for name in submodule._c._method_names():
            graph = submodule._c._get_method(name).graph
            for kind in FAKE_QUANTIZE_OPS:
                for node in graph.findAllNodes(kind):
                    node.output().replaceAllUsesWith(node.inputsAt(0))
                    node.destroy()
                    count += 1
    return count


def random_like(t):
    """A seeded random tensor like `t`: normal for floats, integers in t's own range (counts,
    indices) for integer tensors; a dict of tensors (a batch dict) entry by entry."""
    if isinstance(t, dict):
        return {key: random_like(value) for key, value in t.items()}
    if t.is_floating_point():
        return torch.randn_like(t)
    return torch.randint_like(t, int(t.min()), int(t.max()) + 1)


def same_values(expected, actual):
    """Whether two outputs hold the same values, NaN where the other has NaN: a seeded random
    input can make both models divide by zero or fill a whole row with -inf, and NaN is never
    equal to itself under torch.equal."""
    if expected.dtype != actual.dtype or expected.shape != actual.shape:
        return False
    if not expected.is_floating_point():
        return torch.equal(expected, actual)
    nan = torch.isnan(expected)
    return torch.equal(nan, torch.isnan(actual)) and torch.equal(expected[~nan], actual[~nan])


def same_state(expected, actual):
    """Bit for bit, in any layout: torch.equal has no kernel for a sparse buffer (speech models
    register one with `to_sparse()`)."""
    if expected.layout != actual.layout:
        return False
    if expected.layout != torch.strided:
        expected, actual = expected.to_dense(), actual.to_dense()
    return torch.equal(expected, actual)


def zero_fake_quant_flags(module):
    """Zeroes every `fake_quant_enabled` buffer, as torch.ao.quantization.disable_fake_quant
    does to a Python model. Returns how many."""
    count = 0
    for name, buffer in module.named_buffers():
        if name.rsplit(".", 1)[-1] == "fake_quant_enabled":
            buffer.zero_()
            count += 1
    return count


def main():
    args = sys.argv[1:]
    original_path, fixed_path, input_path = args[:3]
    no_float = "--no-float" in args
    fake_quant_off_ = "--fake-quant-off" in args
    rewritten = set(args[args.index("--rewritten") + 1:]) if "--rewritten" in args else set()
    original = torch.jit.load(original_path)
    fixed = torch.jit.load(fixed_path)
    original_state = {name: value.clone() for name, value in original.state_dict().items()}
    original_code = {name: module.code for name, module in original.named_modules() if hasattr(module, "code")}
    if fake_quant_off_:
        # Loaded again for the float runs: the surgery must not touch what is compared below.
        original_float, fixed_float = torch.jit.load(original_path), torch.jit.load(fixed_path)
        if fake_quant_off(original_float) == 0:
            sys.exit("--fake-quant-off: the original model has no fake quantize op")
        fake_quant_off(fixed_float)
    elif "--flags-off" in args:
        original_float, fixed_float = torch.jit.load(original_path), torch.jit.load(fixed_path)
        if zero_fake_quant_flags(original_float) == 0:
            sys.exit("--flags-off: the original model has no fake_quant_enabled buffer")
        zero_fake_quant_flags(fixed_float)
    else:
        original_float, fixed_float = original, fixed

    example = torch.load(input_path)
    example = tuple(example) if isinstance(example, (tuple, list)) else (example,)
    torch.manual_seed(0)
    batches = [example] + [tuple(random_like(t) for t in example) for _ in range(3)]
    if not no_float:
        with torch.no_grad():
            for b, batch in enumerate(batches):
                # A fresh copy for each run: forward may write into a dict it is given. One seed
                # for both runs: forward may draw random numbers (a random start point).
                torch.manual_seed(b)
                expected = tensors(original_float(*copy.deepcopy(batch)))
                torch.manual_seed(b)
                actual = tensors(fixed_float(*copy.deepcopy(batch)))
                if len(expected) != len(actual) or not all(same_values(e, a) for e, a in zip(expected, actual)):
                    sys.exit(f"float outputs differ on batch {b}")

    fixed_state = fixed.state_dict()
    for name, value in original_state.items():
        if name not in fixed_state or not same_state(value, fixed_state[name]):
            sys.exit(f"state `{name}` changed")

    fixed_modules = dict(fixed.named_modules())
    for name, code in original_code.items():
        function = f"{name}.forward" if name else "forward"
        if function in rewritten:
            continue
        if code != fixed_modules[name].code:
            sys.exit(f"{function} changed but qlint did not say it rewrote it")


if __name__ == "__main__":
    main()
