"""Trajectory encoders turn each agent's neighbour offsets into the agent's own frame: a rotation
matrix built from the agent's heading (cos and sin of a float input) multiplies the offsets with
`torch.bmm`. The offsets pass the stub; the rotation matrix never does.

Expected findings: unquantized-operand on the matrix product (as the same operand would be with
`*`). `--fix` gives the rotation matrix a QuantStub of its own.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.embed = nn.Linear(2, 8)
        self.dequant = DeQuantStub()

    def forward(self, offsets, heading):
        cos, sin = torch.cos(heading), torch.sin(heading)
        rotate = torch.stack([torch.stack([cos, -sin], -1), torch.stack([sin, cos], -1)], -2)
        local = torch.bmm(self.quant(offsets), rotate)
        return self.dequant(self.embed(local))


def example_input():
    g = torch.Generator().manual_seed(6)
    return torch.randn(4, 5, 2, generator=g) * 10.0, torch.rand(4, generator=g) * 6.28
