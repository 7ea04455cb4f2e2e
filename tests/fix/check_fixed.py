"""Checks the guarantees of `qlint --fix` with PyTorch itself.

    check_fixed.py ORIGINAL.pt FIXED.pt INPUT.pt [--no-float] [--rewritten FN ...]

- the fixed model loads with torch.jit.load;
- its float outputs are bit-identical to the original's on INPUT and on three seeded random
  inputs of the same shapes (skipped with --no-float: a traced QAT model's forward is
  fake-quantized, and qlint checks its float mode itself);
- every parameter and buffer of the original is there, bit-identical;
- every module's forward that qlint did not list as rewritten (FN: "forward",
  "head.forward") has the same code as before.
Exits non-zero with one line saying what broke.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "sim"))
from reference import tensors  # noqa: E402  tests/sim/reference.py


def main():
    args = sys.argv[1:]
    original_path, fixed_path, input_path = args[:3]
    no_float = "--no-float" in args
    rewritten = set(args[args.index("--rewritten") + 1:]) if "--rewritten" in args else set()
    original = torch.jit.load(original_path)
    fixed = torch.jit.load(fixed_path)

    example = torch.load(input_path)
    example = tuple(example) if isinstance(example, (tuple, list)) else (example,)
    torch.manual_seed(0)
    batches = [example] + [tuple(torch.randn_like(t) for t in example) for _ in range(3)]
    if not no_float:
        with torch.no_grad():
            for b, batch in enumerate(batches):
                expected, actual = tensors(original(*batch)), tensors(fixed(*batch))
                if len(expected) != len(actual) or not all(
                        e.dtype == a.dtype and torch.equal(e, a) for e, a in zip(expected, actual)):
                    sys.exit(f"float outputs differ on batch {b}")

    fixed_state = fixed.state_dict()
    for name, value in original.state_dict().items():
        if name not in fixed_state or not torch.equal(value, fixed_state[name]):
            sys.exit(f"state `{name}` changed")

    fixed_modules = dict(fixed.named_modules())
    for name, module in original.named_modules():
        function = f"{name}.forward" if name else "forward"
        if function in rewritten or not hasattr(module, "code"):
            continue
        if module.code != fixed_modules[name].code:
            sys.exit(f"{function} changed but qlint did not say it rewrote it")


if __name__ == "__main__":
    main()
