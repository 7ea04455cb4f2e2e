"""Farthest-point sampling, then each sampled centre's nearest neighbours (a point-cloud
transformer's sample-and-group, written as point-cloud repositories write it on the CPU: the
sampled indices written column by column, `idx[:, i] = far`), traced after QAT with PyTorch's
default qconfig; the points pass one QuantStub.

Once quantized, the sampling picks other centres (PyTorch: 8 of 32 sampled indices differ) and
the kNN on the quantized points other neighbours (56 of 256, as a set per centre): with float's
centres, the quantized points would change only 1 of them, so the sampling causes the rest.
`check --input` reports both, and the kNN's finding names the sampling ("its operands also come
from `far = torch.max(dist, -1)[1]` on line 32, which changes first"), not only its own rounding.

Expected findings: lines 31 and 46 cancelling-difference (8-bit points minus centres); --fix.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat

CENTRES, NEIGHBOURS = 16, 8


def farthest_points(xyz, count: int):
    b, n, _ = xyz.shape
    idx = torch.zeros(b, count, dtype=torch.long)
    dist = torch.full((b, n), 1e10)
    far = torch.zeros(b, dtype=torch.long)
    batch = torch.arange(b)
    for i in range(count):
        idx[:, i] = far
        centre = xyz[batch, far, :].view(b, 1, 3)
        dist = torch.min(dist, ((xyz - centre) ** 2).sum(-1))
        far = torch.max(dist, -1)[1]
    return idx


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, points):
        p = self.quant(points)
        idx = farthest_points(p, CENTRES)
        centres = p[torch.arange(p.size(0)).view(-1, 1), idx]
        distances = ((centres.unsqueeze(2) - p.unsqueeze(1)) ** 2).sum(-1)
        _, neighbours = distances.topk(NEIGHBOURS, dim=-1, largest=False)
        return self.dequant(centres), neighbours


def example_input():
    """Two clouds of 256 points in the cube [-1, 1]^3."""
    return torch.rand(2, 256, 3, generator=torch.Generator().manual_seed(7)) * 2 - 1


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
