"""frozen-by-trace: a sampler picks each cloud's 4 points farthest from the origin with `topk` and
takes `.data` of the indices, as point-cloud code does after its sampling kernel. Traced, the
indices leave the trace: the archive holds the example's 2x4 indices as a constant, read by the
gather, and every input gets the example's points picked (public model code: a farthest-point
sampling through `.data`; the simulation then compared two runs of the frozen indices).

The scale table is a buffer: an attribute of the archive, not a constant, and silent.

Expected findings:
  frozen-by-trace at `picked = x.gather(...)`
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()
        self.register_buffer("scale", torch.tensor([[1.0, 2.0, 3.0]]))

    def forward(self, points):
        x = self.quant(points * self.scale)
        idx = points.norm(dim=-1).topk(4, dim=1)[1]
        idx = idx.data
        picked = x.gather(1, idx.unsqueeze(-1).expand(-1, -1, 3))
        return self.dequant(picked)


def example_input():
    generator = torch.Generator().manual_seed(7)
    return torch.randn(2, 16, 3, generator=generator)


def build():
    return trace_default_qat(Model(), example_input())
