"""A point-cloud encoder that drops points outside the range before it uses them, the way
point-cloud code filters: `points = points[keep]`, the same name for the filtered tensor.

Each point is (batch index, x, y, intensity) and passes one QuantStub. The batch index of each
kept point is then cast to an integer to pool the points per sample. After the stub, 1.0 can be
0.99997, which `.long()` truncates to 0: the point lands in the other sample (truncating-cast).

`--fix` casts the float batch index instead, filtered by the same mask. In the Python source,
`points` after the filter is no longer the stub's output: the change cannot simply read the
stub's float input there (that would take the unfiltered points), so --diff says why it gives
no source change instead of one that changes the model.

Expected finding:
  line 34 truncating-cast  `points[:, 0]` cast with `.long()`
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.encode = nn.Linear(3, 8)
        self.dequant = DeQuantStub()

    def forward(self, points):
        points = self.quant(points)
        in_range = points[:, 1].abs() < 4.0
        points = points[in_range]
        features = torch.relu(self.encode(points[:, 1:]))
        sample = points[:, 0].long()
        pooled = torch.zeros(2, 8).index_add(0, sample.clamp(0, 1), features)
        return self.dequant(pooled)


def example_input():
    generator = torch.Generator().manual_seed(5)
    xyz = torch.randn(64, 3, generator=generator) * 3.0
    sample = (torch.arange(64) % 2).float()[:, None]
    return torch.cat([sample, xyz], dim=1)
