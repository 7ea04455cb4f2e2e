"""Pillar indices computed from quantized point coordinates (a PointPillars-style scatter).

The points pass the stub with their features; each point's pillar is `floor((xy - origin) /
pillar_size)` as `.long()` on the quantized coordinates, and the pillar features are scattered
into a bird's-eye-view canvas at those indices. Quantization moves a coordinate by up to half a
step, so a point near a pillar border lands in the neighbouring pillar; the float model's
indices come from the float coordinates.

Expected findings:
  line 35 truncating-cast  `.long()` of quantized coordinates
`--fix` casts the float input of the stub instead (the float shadow): the float model's indices,
floor and all.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub

GRID = 8
PILLAR = 0.5


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.pillar_net = nn.Linear(4, 6)
        self.dequant = DeQuantStub()
        self.grid = GRID
        self.pillar = PILLAR

    def forward(self, points):
        p = self.quant(points)
        feats = torch.relu(self.pillar_net(p))
        cell = ((p[:, :2] + self.grid * self.pillar / 2) / self.pillar).long()
        cell = cell.clamp(0, self.grid - 1)
        flat = cell[:, 1] * self.grid + cell[:, 0]
        canvas = torch.zeros(self.grid * self.grid, 6)
        canvas = canvas.index_add(0, flat, feats)
        return self.dequant(canvas.t().reshape(1, 6, self.grid, self.grid))


def example_input():
    generator = torch.Generator().manual_seed(11)
    xy = (torch.rand(40, 2, generator=generator) - 0.5) * GRID * PILLAR
    xy[:8] = torch.round(xy[:8] / PILLAR) * PILLAR  # points on pillar borders
    z = torch.randn(40, 1, generator=generator)
    intensity = torch.rand(40, 1, generator=generator) * 60.0
    return torch.cat([xy, z, intensity], dim=1)
