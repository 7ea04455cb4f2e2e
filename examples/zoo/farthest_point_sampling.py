"""Farthest-point sampling on quantized points: a distance buffer updated in place in a loop.

Each step measures every point's squared distance to the last picked point, keeps the smaller of
it and the buffer (`nearest[closer] = d[closer]`, an in-place write of quantized distances), and
picks the point farthest from all picked ones. With the points quantized, `d < nearest` flips for
near ties and the model picks other points: only the simulation shows it (`sim-divergence`).

Both sides of `d < nearest` carry quantization, and `nearest` is a buffer written in place in
the loop. Rerooting `d` alone would change no result (qlint once wrote that, and the comparison
flipped as often as before); `--fix` reroots both: the float twin of `nearest` is a copy of the
buffer that each write also writes, with the twins of what it writes, so the sampling is the
float model's.

Expected findings (static): none.
"""
import torch
from torch import nn
from torch.ao.quantization import QuantStub

SAMPLES = 6
# A loop over the points' own indices: torch.fx cannot trace `torch.arange(p.shape[0])`.
FX_TRACEABLE = False


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.samples = SAMPLES

    def forward(self, points):
        p = self.quant(points)
        batch = torch.arange(p.shape[0])
        nearest = torch.ones(p.shape[0], p.shape[1]) * 1e10
        last = torch.zeros(p.shape[0], dtype=torch.long)
        picked = torch.zeros(p.shape[0], self.samples, dtype=torch.long)
        for i in range(self.samples):
            picked[:, i] = last
            d = torch.sum((p - p[batch, last].unsqueeze(1)) ** 2, -1)
            closer = d < nearest
            nearest[closer] = d[closer]
            last = torch.max(nearest, -1)[1]
        return picked


def example_input():
    generator = torch.Generator().manual_seed(2)
    return torch.rand(2, 48, 3, generator=generator) * 0.5
