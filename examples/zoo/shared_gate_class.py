"""One gating class used twice: a new stub must go on every instance of the class.

Two-branch head style: `Gate` multiplies quantized features by a bool mask (a CPU fallback on
accelerators), and the model has two instances, `gate_pos` and `gate_neg`. TorchScript keeps
one class for both, so the fix edits the class's method once and gives each instance a stub of
its own.

Expected findings:
  line 18 bool-arith  `feats * keep`: a bool tensor in `*` (one finding for the class's line)
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Gate(nn.Module):
    def forward(self, feats, keep):
        return feats * keep


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.gate_pos = Gate()
        self.gate_neg = Gate()
        self.dequant = DeQuantStub()

    def forward(self, x):
        positive = x > 0
        q = self.quant(x)
        return self.dequant(self.gate_pos(q, positive) + self.gate_neg(q, ~positive))


def example_input():
    return torch.randn(2, 8, generator=torch.Generator().manual_seed(0))
