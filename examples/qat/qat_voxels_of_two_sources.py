"""A detector that voxelizes its points twice with one helper, once as given and once after a
refinement layer, and passes the points' intensity through the points' stub, traced after QAT
with an int8 FakeQuantize.

`--fix --input` casts the points' float input for the first call of the helper ("for 1 of its 2
copies") and gives the intensity a fake quant of its own; the second call's voxels come from the
quantized weights of the refinement: no rewrite stops that cast changing. 1 of 2 problems resolved,
the cast left once, by sim-divergence (a layer's output cast is no truncating-cast by form; public
round 18: "for 0 of 2 problems", the cast reported twice, its copy said to be fixed "the same").

Expected findings:
  line 22 truncating-cast  voxel indices from quantized points
  line 39 reused-stub      the intensity through the points' stub
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import INT8_FAKE_QUANT, trace_qat


def voxel_of(points):
    return torch.floor(points * 4.0).long()


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.refine = nn.Linear(3, 3)
        self.mix = nn.Linear(4, 4)
        self.dequant = DeQuantStub()
        with torch.no_grad():
            self.refine.weight.copy_(torch.eye(3))
            self.refine.bias.fill_(0.5)

    def forward(self, points, intensity):
        points = self.quant(points)
        intensity = self.quant(intensity)
        mixed = self.dequant(self.mix(torch.cat([points, intensity], dim=-1)))
        return voxel_of(points), voxel_of(self.refine(points)), mixed


def example_input():
    generator = torch.Generator().manual_seed(18)
    # On the voxel edges (multiples of 0.25), where the rounding moves floor(4 * x) down.
    points = torch.randint(0, 24, (16, 3), generator=generator).float() * 0.25
    intensity = torch.rand(16, 1, generator=generator) * 0.01
    return points, intensity


def build():
    return trace_qat(Model(), example_input(), INT8_FAKE_QUANT)
