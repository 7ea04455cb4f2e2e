"""sim-divergence: a threshold on a quantized value that no static rule knows flips once quantized.

Rows whose mean magnitude sits exactly on the threshold (0.5) are dropped in float; once
quantized, 0.25 and 0.75 round up to the next multiple of the scale, their mean lands just
above 0.5, and the rows are kept. Only `qlint check --input` (the simulation) sees it.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        energy = x.abs().mean(dim=-1)
        keep = energy > 0.5
        gated = x.masked_fill(~keep[..., None], 0.0)
        return self.dequant(gated)


def example_input():
    # Rows 0 and 2 lie on the threshold (alternating 0.25 and 0.75: mean 0.5); row 1 is
    # clearly above it, row 3 clearly below. The 2.0 sets the scale (2.0 / 32767.5).
    x = torch.tensor(
        [
            [0.25, 0.75, 0.25, 0.75, 0.25, 0.75, 0.25, 0.75],
            [1.0, 1.5, 2.0, 1.0, 1.5, 1.0, 1.5, 1.0],
            [-0.25, -0.75, 0.25, 0.75, -0.25, -0.75, 0.25, 0.75],
            [0.1, -0.1, 0.2, -0.2, 0.1, -0.1, 0.2, -0.2],
        ]
    )
    return x.unsqueeze(0)
