"""Feature-pyramid levels quantized in a `for` loop over a list, by one QuantStub.

The neck first quantizes every level in a loop, `for level in [c3, c4, c5]:
quantized.append(self.quant(level))`, a real loop in TorchScript (a list of tensors, not a
ModuleList), then runs each lateral conv on its level. All levels share the stub's one scale: the
coarse level's range sets it, and the fine level keeps a few steps of it.

`--fix` unrolls the loop in the archive (its trip count is the list's length) and gives each
iteration after the first a clone of the stub; the Python suggestion says to use a list of stubs
indexed like the loop.

Expected findings:
  line 33 reused-stub  `self.quant` applied in a loop to each tensor of a list
"""
from typing import List

import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.lateral = nn.ModuleList([nn.Conv2d(c, 8, 1) for c in (4, 8, 16)])
        self.dequant = DeQuantStub()

    def forward(self, c3, c4, c5):
        quantized: List[torch.Tensor] = []
        for level in [c3, c4, c5]:
            quantized.append(self.quant(level))
        outs: List[torch.Tensor] = []
        i = 0
        for lateral in self.lateral:
            outs.append(lateral(quantized[i]))
            i += 1
        top = outs[2]
        mid = outs[1] + nn.functional.interpolate(top, scale_factor=2.0, mode="nearest")
        fine = outs[0] + nn.functional.interpolate(mid, scale_factor=2.0, mode="nearest")
        return self.dequant(fine), self.dequant(mid), self.dequant(top)


def example_input():
    generator = torch.Generator().manual_seed(7)
    c3 = torch.randn(1, 4, 16, 16, generator=generator) * 0.1
    c4 = torch.randn(1, 8, 8, 8, generator=generator) * 2.0
    c5 = torch.randn(1, 16, 4, 4, generator=generator) * 40.0
    return c3, c4, c5
