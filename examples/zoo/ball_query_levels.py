"""Two set-abstraction levels that share one ball-query helper with a radius threshold.

PointNet++-style code keeps the ball query in a module-level function that each level's
`forward` calls. The points pass the stub before the first level, and the second level groups
the first level's output, so the helper's parameter is quantized at both calls, and points at
the radius fall inside or outside by the rounding: the threshold flips, which only the
simulation shows (`sim-divergence`, no static rule). The second level's points are a layer's
output, whose float twin would run `self.sa1.mlp` again in float beside the quantized one: `--fix`
makes none (public round 26: a fixed model took its decisions from such a float copy).

Expected findings (static): unquantized-operand on the mask's product and on its count's `/`.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub

RADIUS = 1.0


def ball_query(points: torch.Tensor, centres: int, radius: float) -> torch.Tensor:
    """Which points lie within `radius` of each of the first `centres` points."""
    c = points[:, :centres]
    dist = torch.sum((c[:, :, None] - points[:, None]) ** 2, -1)
    return dist <= radius**2


class SetAbstraction(nn.Module):
    def __init__(self, centres: int):
        super().__init__()
        self.centres = centres
        self.radius = RADIUS
        self.mlp = nn.Linear(3, 3)

    def forward(self, points: torch.Tensor) -> torch.Tensor:
        inside = ball_query(points, self.centres, self.radius)
        return torch.matmul(inside.float(), self.mlp(points)) / inside.float().sum(-1, keepdim=True)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.sa1 = SetAbstraction(8)
        self.sa2 = SetAbstraction(4)
        self.dequant = DeQuantStub()

    def forward(self, points):
        level1 = self.sa1(self.quant(points))
        return self.dequant(self.sa2(level1))


def example_input():
    generator = torch.Generator().manual_seed(8)
    points = torch.randn(2, 24, 3, generator=generator) * 2.0
    # Points at the radius from each centre, as a dense cloud has many.
    direction = torch.nn.functional.normalize(torch.randn(2, 8, 3, generator=generator), dim=-1)
    points[:, 8:16] = points[:, :8] + direction * RADIUS
    return points
