"""A trajectory encoder whose goal offset goes through the track's QuantStub, though only training
reads it. Traced after QAT with an int8 FakeQuantize: the trace keeps the stub's call on the goal
but drops its body, whose result nothing uses, and with it the call's line.

The goal's range still went into the track's scale while the model was calibrated. The finding
is said at the stub's first line, and says that the call it means has no line (public round 20's
trajectory transformer: a test-time offset through a shared stub was reported at the first
call's line as "again on this line: a loop or a repeated call").

Expected findings:
  line 31 reused-stub          the goal through the track's stub, a call the trace kept no line for
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import INT8_FAKE_QUANT, trace_qat

STEPS = 8


class Model(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.encode = nn.Linear(2, width)
        self.head = nn.Linear(width, 2)
        self.dequant = DeQuantStub()

    def forward(self, track, goal):
        track = self.quant(track)
        goal = self.quant(goal)
        h = torch.relu(self.encode(track))
        if self.training:
            h = h + torch.relu(self.encode(goal))
        return self.dequant(self.head(h))


def example_input():
    generator = torch.Generator().manual_seed(31)
    track = torch.randn(STEPS, 2, generator=generator)
    goal = torch.randn(1, 2, generator=generator) * 20.0
    return track, goal


def build():
    return trace_qat(Model(), example_input(), INT8_FAKE_QUANT)
