"""Two set-abstraction levels of a point-cloud network sharing one grouping helper.

PointNet++-style code has a module-level helper (`sample_and_group`) that every set-abstraction
layer calls from its `forward`. Here the stubbed points hold x, y, z and a validity flag (1 for
a real point, 0 for padding); the helper takes the first `npoint` points as centres and blanks
the padded ones with `flag == 1`. Both levels get the quantized points from the model, so the
helper's parameter has two float counterparts, one per level: `--fix` inlines the helper's
call into one level's `forward` per round, after the model's call of that level passes the
float points down as an extra argument, and the comparison reads their twin there.

Expected findings:
  line 25 eq-nonzero-const  `points[:, :npoint, 3] == 1` in the helper
  line 48 shared-stub-mask  `self.quant` quantizes the flag with the coordinates
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub

torch.manual_seed(0)


def sample_and_group(points: torch.Tensor, npoint: int) -> torch.Tensor:
    """The first `npoint` points as centres, padding blanked."""
    centres = points[:, :npoint, :3]
    valid = points[:, :npoint, 3] == 1
    return centres.masked_fill(~valid[..., None], 0.0)


class SetAbstraction(nn.Module):
    def __init__(self, npoint: int, width: int):
        super().__init__()
        self.npoint = npoint
        self.mlp = nn.Linear(3, width)

    def forward(self, points: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.mlp(sample_and_group(points, self.npoint)))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.sa1 = SetAbstraction(8, 4)
        self.sa2 = SetAbstraction(4, 4)
        self.dequant = DeQuantStub()

    def forward(self, x):
        points = self.quant(x)
        return self.dequant(torch.cat([self.sa1(points), self.sa2(points)], dim=1))


def example_input():
    generator = torch.Generator().manual_seed(0)
    xyz = torch.rand(2, 10, 3, generator=generator) * 6.0 - 3.0
    flag = torch.ones(2, 10, 1)
    flag[0, 5:] = 0.0
    flag[1, 2:4] = 0.0
    return torch.cat([xyz, flag], dim=-1)
