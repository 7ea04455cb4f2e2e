"""One QuantStub for two inputs, declared among other statements on one line of `__init__`
(`super().__init__(); self.quant = tq.QuantStub(); ...`), with the quantization package imported
under a short name, as compact research code writes it.

The stub quantizes the point features (tens of metres) and then the per-point intensities (0 to
1) with one scale: reused-stub. `--fix` gives the second call a stub of its own; the Python
change adds `self.quant_1 = tq.QuantStub()` on a line of its own after that one-line statement
list, spelled as the model spells its stubs. Before, the suggestion said no `self.quant =
QuantStub()` line was found.

Expected findings:
  line 28 reused-stub  `self.quant` applied to `intensity` after `points`
"""
import torch
import torch.ao.quantization as tq
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__(); self.quant = tq.QuantStub(); self.dequant = tq.DeQuantStub()  # noqa: E702
        torch.manual_seed(0)
        self.encode = nn.Linear(3, 8)
        self.weigh = nn.Linear(1, 8)

    def forward(self, points, intensity):
        p = self.quant(points)
        i = self.quant(intensity)
        return self.dequant(self.encode(p) * self.weigh(i))


def example_input():
    generator = torch.Generator().manual_seed(3)
    points = torch.randn(1, 64, 3, generator=generator) * 20.0
    intensity = torch.rand(1, 64, 1, generator=generator)
    return points, intensity
