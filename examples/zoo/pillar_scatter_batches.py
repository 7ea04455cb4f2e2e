"""A PointPillars-style scatter that selects each sample's pillars by comparing their batch index
with the loop variable: `this_sample = pillars[:, 0] == b` for `b in range(batch_size)`.

Each pillar row is (batch index, row, column, features...) and passes one QuantStub, so the batch
index is quantized with the features: 1.0 can come out as 0.99997, and then no pillar of the
second sample equals 1 (eq-nonzero-const: the comparison is with an integer the model computes,
not a constant). The pooled features of every sample but the first stay empty.

`--fix` compares the float batch index, before the stub.

Expected finding:
  line 33 eq-nonzero-const  `pillars[:, 0] == b`
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self, batch_size: int = 2, channels: int = 3):
        super().__init__()
        torch.manual_seed(0)
        self.batch_size = batch_size
        self.quant = QuantStub()
        self.encode = nn.Linear(channels, 8)
        self.dequant = DeQuantStub()

    def forward(self, pillars):
        pillars = self.quant(pillars)
        features = torch.relu(self.encode(pillars[:, 3:]))
        pooled = []
        for b in range(self.batch_size):
            this_sample = pillars[:, 0] == b
            pooled.append(torch.where(this_sample[:, None], features, torch.zeros_like(features)).sum(dim=0))
        return self.dequant(torch.stack(pooled))


def example_input():
    generator = torch.Generator().manual_seed(4)
    rows = 12
    sample = (torch.arange(rows) % 2).float()[:, None]
    cell = torch.randint(0, 4, (rows, 2), generator=generator).float()
    features = torch.randn(rows, 3, generator=generator) * 20.0
    return torch.cat([sample, cell, features], dim=1)
