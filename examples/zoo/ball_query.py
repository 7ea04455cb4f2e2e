"""Ball query of a point-cloud set-abstraction layer: squared distances built in place, then a
radius threshold.

Point-cloud networks compute pairwise squared distances as `-2 * a @ b^T`, then add the squared
norms in place (`dist += ...`), and keep the neighbours within a radius. The points pass the
stub, so the distances are computed from quantized coordinates, and a point at the radius falls
inside or outside by the rounding: the threshold flips, which only the simulation shows
(`sim-divergence`, no static rule).

`--fix --input` reroots the threshold onto the float input of the stub: the in-place `+=`s are
copied into the float twin, since nothing but each `+=` reads the value it writes (before, the
finding said "no automatic fix: ... changes its operand in place").

The neighbours are then grouped by a matrix product of the 0/1 mask with the features: the
mask, cast to float, never passed a quant point (`unquantized-operand`, as for `*`); `--fix`
gives it a QuantStub of its own.

Expected findings (static): unquantized-operand on the grouping product.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub

RADIUS = 1.0


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.mlp = nn.Linear(3, 8)
        self.dequant = DeQuantStub()
        self.radius = RADIUS

    def forward(self, points):
        p = self.quant(points)
        centres = p[:, :4]
        dist = -2 * torch.matmul(centres, p.transpose(1, 2))
        dist += torch.sum(centres**2, -1).unsqueeze(2)
        dist += torch.sum(p**2, -1).unsqueeze(1)
        inside = dist <= self.radius**2
        grouped = torch.matmul(inside.float(), self.mlp(p))
        return self.dequant(grouped)


def example_input():
    generator = torch.Generator().manual_seed(8)
    points = torch.randn(2, 24, 3, generator=generator) * 2.0
    # Points at the radius from each centre, as a dense cloud has many.
    direction = torch.nn.functional.normalize(torch.randn(2, 4, 3, generator=generator), dim=-1)
    points[:, 4:8] = points[:, :4] + direction * RADIUS
    return points
