"""A pillar encoder whose three inputs pass one QuantStub, a shortcut point-cloud code takes
when it wraps a float model for QAT: the points, the number of points per pillar and the pillar
coordinates (batch index, y, x) all go through `self.quant`.

The counts and coordinates are whole numbers that the stub rounds onto the points' scale: the
counts are cast to integers to divide by, the batch index is compared with 1, and the cell
coordinates are cast to integer indices.

Expected findings:
  line 35 reused-stub       the counts through the points' stub
  line 36 reused-stub       the coordinates through it too
  line 36 shared-stub-mask  the batch index, compared on line 38, shares the points' scale
  line 37 truncating-cast   the quantized counts cast to integers
  line 38 eq-nonzero-const  `coords[:, 0] == 1` after the stub
  line 39 truncating-cast   the quantized cells cast to integers
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.dequant = DeQuantStub()
        self.encode = nn.Linear(4, 8)
        self.grid = 4

    def forward(self, points, counts, coords):
        # points: (pillars, 5 points, 4); counts: (pillars,); coords: (pillars, 3) as
        # batch index, y and x of the pillar's cell.
        points = self.quant(points)
        counts = self.quant(counts)
        coords = self.quant(coords)
        features = self.encode(points).sum(dim=1) / counts.int()[:, None]
        second = coords[:, 0] == 1
        cells = (coords[:, 1] * self.grid + coords[:, 2]).long()
        canvas = torch.zeros(2, self.grid * self.grid, 8)
        canvas[second.long(), cells] = features
        return self.dequant(canvas)


def example_input():
    generator = torch.Generator().manual_seed(6)
    points = torch.randn(6, 5, 4, generator=generator) * 20
    counts = torch.tensor([5.0, 3.0, 2.0, 5.0, 1.0, 4.0])
    coords = torch.tensor([[0.0, 0, 1], [0, 2, 3], [0, 3, 0], [1, 1, 1], [1, 0, 2], [1, 3, 3]])
    return points, counts, coords
