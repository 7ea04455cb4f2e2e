"""A trajectory encoder that embeds each agent's last position and its last displacement with
one spatial embedding, both calls in one statement, traced after QAT with an int8 FakeQuantize.

QAT gives the Linear one output fake quant, shared by both calls: the positions (tens of
metres) set the scale the displacements (a few centimetres per step) are rounded to. The trace
gives both calls the statement's line, as it gives a loop's copies; the statement's text calls
the embedding twice (public round 18's social-pooling model: nothing was reported, and the same
calls written on two lines were). `--fix` gives the second call's output a fake quant of its own.

Expected findings:
  line 32 reused-stub  the embedding's output fake quant, shared by both calls
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import INT8_FAKE_QUANT, trace_qat


class Model(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        torch.manual_seed(0)
        self.quant_positions = QuantStub()
        self.quant_steps = QuantStub()
        self.spatial = nn.Linear(2, width)
        self.dequant = DeQuantStub()

    def forward(self, positions, steps):
        positions = self.quant_positions(positions)
        steps = self.quant_steps(steps)
        # One embedding for where each agent is and how it moved last.
        features = torch.cat([self.spatial(positions), self.spatial(steps)], dim=-1)
        return self.dequant(features)


def example_input():
    generator = torch.Generator().manual_seed(18)
    positions = torch.rand(12, 2, generator=generator) * 60.0 - 30.0
    steps = torch.randn(12, 2, generator=generator) * 0.05
    return positions, steps


def build():
    return trace_qat(Model(), example_input(), INT8_FAKE_QUANT)
