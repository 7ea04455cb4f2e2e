"""A float-cast mask concatenated with the data, then one QuantStub over both (S4/S5 shape).

Point-cloud feature augmentation: the bool `valid` input (which points are real, which are
padding) is appended to the points as a 0/1 channel, and the packed tensor goes through one
QuantStub. With coordinates up to 50 m the shared scale is set by the data (PyTorch 1.13 on
the example input: int16 scale 0.0015259, 1.0 -> 0.9994659; int8 scale 0.392, 1.0 -> 1.1765),
and with larger coordinates (scale > 2) every 1 of the mask rounds to 0, as in S4.

Expected findings:
  line 27 shared-stub-mask  `self.quant` quantizes the 0/1 mask channel together with the points
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.pointnet = nn.Sequential(nn.Linear(5, 32), nn.ReLU(), nn.Linear(32, 32))
        self.dequant = DeQuantStub()

    def forward(self, points, valid):
        x = torch.cat([points, valid[..., None].to(torch.float)], dim=-1)
        x = self.quant(x)
        feats = self.pointnet(x)
        return self.dequant(feats.max(dim=1).values)


def example_input():
    generator = torch.Generator().manual_seed(0)
    points = torch.randn(1, 12, 4, generator=generator) * 20.0
    points[0, 0, 0] = 50.0
    valid = torch.arange(12)[None, :] < 9
    points[~valid] = 0.0
    return points, valid
