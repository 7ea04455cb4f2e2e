"""Attention among agents whose 0/1 adjacency is passed through the positions' QuantStub, then
tested twice in one statement: `adj == 0` (exact: 0 stays 0) picks where to put -10000, and
`adj == 1` (1 does not survive the positions' scale) where to put 0. Traced after default QAT.

Both comparisons are on one line. The simulation counts each on its own: the evidence note on
`== 1` counts its 36 results, not the 72 of both (public round 20's trajectory transformer: "40
of 320 results of this comparison differ" where 40 of its 160 did).

Expected findings:
  line 34 reused-stub          the adjacency through the positions' stub
  line 34 shared-stub-mask     the adjacency, a 0/1 mask, at the positions' scale
  line 36 eq-nonzero-const     `adj == 1` after the shared stub
  line 37 unquantized-operand  the -10000 bias added to the quantized scores
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat

AGENTS = 6


class Model(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.embed = nn.Linear(2, width)
        self.dequant = DeQuantStub()

    def forward(self, positions, adjacency):
        positions = self.quant(positions)
        # One stub for both inputs, as a wrapper applying it to every input does.
        adjacency = self.quant(adjacency)
        h = self.embed(positions)
        bias = adjacency.masked_fill(adjacency == 0.0, -10000.0).masked_fill(adjacency == 1.0, 0.0)
        return self.dequant(torch.softmax(h @ h.t() + bias, dim=-1))


def example_input():
    generator = torch.Generator().manual_seed(23)
    positions = torch.randn(AGENTS, 2, generator=generator) * 3.0
    adjacency = (torch.rand(AGENTS, AGENTS, generator=generator) > 0.5).float()
    return positions, adjacency


def build():
    return trace_default_qat(Model(), example_input())
