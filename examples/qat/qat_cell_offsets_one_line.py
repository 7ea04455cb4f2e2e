"""A heatmap decoder that adds each peak's value to its integer cell coordinates, both on one
line (`torch.cat([xs + v, ys + v], 1)`, CenterNet-style), traced after QAT with PyTorch's default
qconfig.

A trace gives every op of a statement the statement's range, so the two `+` are two
unquantized-operand findings at one place. `--fix --input` fixes both in one run (before, the
second was taken for the first one, already fixed, and left without a word until a second
`--fix`), and the cell coordinates, whole numbers cast to float, get new fake quants of scale 1,
which keep them exact.

Expected findings (one place, two findings):
  line 31 unquantized-operand  `xs` added to the peak values
  line 31 unquantized-operand  `ys` added to the peak values
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, heat):
        h = self.quant(heat)
        v, i = h.flatten(1).topk(4)
        xs, ys = (i % 8).float(), torch.div(i, 8, rounding_mode="floor").float()
        return self.dequant(torch.cat([xs + v, ys + v], 1))


def example_input():
    """Background below 0.4 and four clear peaks per map, so the top 4 are the same cells once
    quantized."""
    heat = torch.rand(2, 8, 8, generator=torch.Generator().manual_seed(5)) * 0.4
    for b, cells in enumerate([(3, 17, 40, 62), (9, 12, 33, 50)]):
        for rank, cell in enumerate(cells):
            heat[b].view(-1)[cell] = 0.95 - 0.15 * rank
    return heat


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
