"""A pillar encoder that averages the points of each pillar: the points go through a stub, the
number of points per pillar is a float input of its own (as voxelizers hand it over), and the
sum is divided by it, traced after QAT with an int8 FakeQuantize.

The count never passed a stub. `--fix` gives it a fake quant of its own; nothing in the graph
says it holds whole numbers, but the inputs do (up to 32 points), so the new fake quant starts at
scale 1, where every count is exact (calibrated, 32/127.5: a pillar of 3 points would be
divided by 3.01).

Expected findings:
  line 30 unquantized-operand  the point count divides quantized sums
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import INT8_FAKE_QUANT, trace_qat


class Model(nn.Module):
    def __init__(self, channels: int = 4, width: int = 8):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.encode = nn.Linear(channels, width)
        self.dequant = DeQuantStub()

    def forward(self, points, num_points):
        features = self.encode(self.quant(points))
        # The mean over the points of each pillar.
        mean = features.sum(dim=1) / num_points.view(-1, 1)
        return self.dequant(mean)


def example_input():
    generator = torch.Generator().manual_seed(18)
    num_points = torch.randint(1, 33, (16,), generator=generator)
    points = torch.rand(16, 32, 4, generator=generator) * 4
    padding = torch.arange(32)[None, :] >= num_points[:, None]
    points[padding] = 0
    return points, num_points.float()


def build():
    return trace_qat(Model(), example_input(), INT8_FAKE_QUANT)
