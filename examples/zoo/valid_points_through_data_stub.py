"""A point-cloud encoder whose validity mask (1 for a real point, 0 for padding) passes the
points' QuantStub as floats, `v = self.quant(valid.float())`, and then replaces each padded point
by the first one: `points * v + points[:, :1] * (1 - v)`.

Through the points' stub the mask shares their scale, at which 1 rounds to another value: every
real point is shrunk and shifted toward the first, and what samples or groups points afterwards
picks others. Once `--input` shows `valid` is bool, the stub's second call quantizes a bool mask
cast to float: `shared-stub-mask` beside `reused-stub`, whose fix gives that call a quant point of
its own, exact for 0 and 1 (without inputs the dtype is unknown: reused-stub alone).

Expected findings:
  line 30 reused-stub       the mask through the points' stub (and shared-stub-mask with --input)
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.encode = nn.Linear(3, width)
        self.dequant = DeQuantStub()

    def forward(self, points, valid):
        points = self.quant(points)
        # The line both findings name.
        v = self.quant(valid.float())[..., None]
        points = points * v + points[:, :1] * (1 - v)
        return self.dequant(self.encode(points).max(dim=1)[0])


def example_input():
    generator = torch.Generator().manual_seed(16)
    points = torch.randn(2, 12, 3, generator=generator) * 4
    valid = torch.ones(2, 12, dtype=torch.bool)
    valid[1, 9:] = False
    return points, valid
