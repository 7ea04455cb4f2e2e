"""Attention among pedestrians masked by who sees whom: an additive bias built from a 0/1
adjacency input with `masked_fill(adj == 0, -1e20)`, added to the quantized scores, traced after
default QAT.

The bias never passes a quant point (unquantized-operand), but a quant point of its own is no
advice: at quint8 a scale spanning -1e20 is 3.9e17, and the scores it is added to would round to
0. The finding sees the fill (a stand-in for -inf, as -10000 is in BERT), says so and offers no
quant point; `--fix` writes nothing (public round 20's trajectory transformer: `check` said "pass
it through a QuantStub of its own", `--fix` refused it).

Expected findings:
  line 34 unquantized-operand  the -1e20 adjacency bias added to the quantized scores
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat


class Model(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.query = nn.Linear(width, width)
        self.key = nn.Linear(width, width)
        self.dequant = DeQuantStub()

    def forward(self, people, adjacency):
        people = self.quant(people)
        scores = self.query(people) @ self.key(people).t()
        # -1e20 where two pedestrians do not see each other, 0 where they do.
        bias = adjacency.masked_fill(adjacency == 0.0, -1e20).masked_fill(adjacency == 1.0, 0.0)
        weights = torch.softmax(scores + bias, dim=-1)
        return self.dequant(weights)


def example_input():
    generator = torch.Generator().manual_seed(22)
    adjacency = (torch.rand(6, 6, generator=generator) > 0.4).float()
    adjacency.fill_diagonal_(1.0)
    return torch.randn(6, 8, generator=generator), adjacency


def build():
    return trace_default_qat(Model(), example_input())
