"""A pillar encoder of a point-cloud detector, traced after QAT with PyTorch's default qconfig:
decorations computed from integer inputs join the quantized point features unquantized.

Points arrive grouped into pillars, (pillars, points, 4) float features that pass the stub, with
each pillar's integer grid coordinates and point count beside them (neither passes a stub:
they are indices, not data). The encoder decorates every point with its offset from the
pillar's mean and from the pillar's centre, and zeroes the padding points:
  line 32 the mean divides by the count cast to float: an operand without a scale
  line 33 the centre, grid coordinate times voxel size plus origin, is subtracted likewise
  line 36 a padding mask made from the count (a bool cast to float) multiplies the features
Each of these operands is an unnamed value inside a child module's traced forward: --fix
gives each a clone of the stub's fused FakeQuantize, calibrated on the value itself (the
values are found by their place in the graph, which the simulator's copy keeps; their numbers
are not kept, which once measured the wrong values or none), and the mask scale 1.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat

VOXEL_SIZE = 0.16
ORIGIN = 0.08


class PillarDecoration(nn.Module):
    def __init__(self, channels=8):
        super().__init__()
        self.linear = nn.Linear(6, channels)

    def forward(self, points, count, grid):
        xyz = points[:, :, :3]
        mean = xyz.sum(dim=1, keepdim=True) / count.type_as(points).view(-1, 1, 1)
        centre = points[:, :, :1] - (grid[:, :1].float().unsqueeze(1) * VOXEL_SIZE + ORIGIN)
        slots = torch.arange(points.shape[1]).view(1, -1) < count.view(-1, 1)
        decorated = torch.cat([points[:, :, :3], xyz - mean, centre, points[:, :, 3:]], dim=2)
        decorated = decorated[:, :, :6] * slots.unsqueeze(2).type_as(decorated)
        return self.linear(decorated).max(dim=1)[0]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.pillars = PillarDecoration()
        self.dequant = DeQuantStub()

    def forward(self, points, count, grid):
        return self.dequant(self.pillars(self.quant(points), count, grid))


def example_input():
    generator = torch.Generator().manual_seed(4)
    points = torch.randn(6, 5, 4, generator=generator) * 2
    count = torch.randint(1, 6, (6,), generator=generator)
    grid = torch.randint(0, 400, (6, 2), generator=generator)
    return points, count, grid


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
