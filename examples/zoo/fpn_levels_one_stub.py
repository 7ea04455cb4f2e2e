"""A feature pyramid whose levels all enter through one QuantStub, applied in a loop.

FPN-style necks take the backbone's levels as a list and run each through its lateral conv in a
`for` loop over an nn.ModuleList. Written with a single `self.quant` for every level, the stub
is applied once per iteration, so all levels share its one scale: the coarse level's wide range
sets it, and the fine level (values around 0.1) keeps only a few steps of it.

TorchScript unrolls a loop over a ModuleList: the three applications are three calls on one
line. `--fix` gives each application after the first a clone of the stub of its own (one per
level), in the archive; the Python suggestion cannot split one line's call per iteration and
says so.

Expected findings:
  line 36 reused-stub  `self.quant` applied again on this line (a loop)
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
        levels: List[torch.Tensor] = [c3, c4, c5]
        outs: List[torch.Tensor] = []
        i = 0
        for lateral in self.lateral:
            outs.append(lateral(self.quant(levels[i])))
            i += 1
        return self.top_down(outs)

    def top_down(self, outs: List[torch.Tensor]):
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
