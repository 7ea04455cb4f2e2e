"""Point features weighted around a randomly drawn start point, with a validity flag channel.

Farthest-point sampling in point-cloud networks starts at a random point: the model draws random
numbers in forward, so two float runs on the same points differ. The points pass one stub with
their 0/1 validity flag, which is then compared with 1 and multiplied into the features.

qlint runs every batch from the same random seed (float, simulated and fixed runs alike), so the
simulation measures quantization, not the random draw, and `--fix --input` can verify that the
fixed model's float outputs are bit-identical. Before, `check --input` blamed the stub for
comparisons the random draw flipped, and `--fix` refused its own rewrite ("float output 0
differs").

Expected findings:
  line 32 shared-stub-mask  the flag channel quantized with the coordinates
  line 34 eq-nonzero-const  `== 1` on the quantized flag
  line 39 bool-arith        the bool flag in `*`
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.encoder = nn.Linear(3, 8)
        self.dequant = DeQuantStub()

    def forward(self, points):
        p = self.quant(points)
        xyz = p[:, :, :3]
        valid = p[:, :, 3] == 1
        start = torch.rand_like(p[:, :, 0]).argmax(dim=1, keepdim=True)
        centre = torch.gather(xyz, 1, start.unsqueeze(-1).expand(-1, -1, 3))
        dist = ((xyz - centre) ** 2).sum(-1)
        feats = self.encoder(xyz) * torch.exp(-dist).unsqueeze(-1)
        return self.dequant(feats * valid.unsqueeze(-1))


def example_input():
    generator = torch.Generator().manual_seed(3)
    xyz = torch.randn(2, 32, 3, generator=generator) * 8.0
    valid = (torch.rand(2, 32, 1, generator=generator) > 0.25).float()
    return torch.cat([xyz, valid], dim=2)
