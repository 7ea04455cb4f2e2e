"""Suppressions: `# qlint: ignore[rule]` on a line silences that rule there; a bare
`# qlint: ignore` silences every rule; `unused-suppression` (opt-in) reports one that
silences nothing."""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from seed_input import actors_input


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.quant(x)  # qlint: ignore
        mask = x[:, :, :, -1] == 1  # qlint: ignore[eq-nonzero-const]
        out = x * mask[:, :, :, None]
        out = out * 2.0  # qlint: ignore[bool-arith]
        return self.dequant(out)


def example_input():
    return actors_input()
