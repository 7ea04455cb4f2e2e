"""A trajectory model that embeds the track observed so far at each time step, with one Linear.
The first step and the others are written in the two branches of `if t == 0: ... else: ...`,
which read the same. Traced after default QAT: the trace keeps the calls at two lines.

Every call embeds one kind of value (the same track, one frame longer each step), and one output
scale for all is the layer's design, as for a call on one line in a loop (public round 20's
trajectory transformer: reported as a module called on a second tensor, and the fix's own scale
for the later steps lowered the output's SQNR).

Expected findings: none.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat

STEPS = 6


class Model(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.embed = nn.Linear(2, width)
        self.head = nn.Linear(width, 2)
        self.dequant = DeQuantStub()

    def forward(self, track):
        track = self.quant(track)
        steps = []
        for t in range(STEPS):
            if t == 0:
                e = torch.relu(self.embed(track[: t + 1]))
            else:
                e = torch.relu(self.embed(track[: t + 1]))
            steps.append(self.head(e.mean(0)))
        return self.dequant(torch.stack(steps))


def example_input():
    generator = torch.Generator().manual_seed(41)
    return torch.cumsum(torch.randn(STEPS, 4, 2, generator=generator) * 0.5, 0)


def build():
    return trace_default_qat(Model(), example_input())
