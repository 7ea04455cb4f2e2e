"""A motion encoder reads the observed positions of a few agents in metres through one QuantStub
and feeds its network their displacements from frame to frame, `x[:, 1:] - x[:, :-1]`, as
trajectory and tracking models do. Traced after QAT with int8 fake quants (symmetric, -128..127),
as an 8-bit accelerator takes them.

The stub's fake quant has a scale for the whole scene (15 m); the displacements are a few tenths
of a metre, a few of its steps (cancelling-difference). `--fix --input` computes them from the
stub's float input and gives them a clone of the model's FakeQuantize, calibrated on them.

Expected findings:
  line 28 cancelling-difference  `traj[:, 1:] - traj[:, :-1]`
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import INT8_FAKE_QUANT, trace_qat


class MotionEncoder(nn.Module):
    def __init__(self, observed: int = 8):
        super().__init__()
        self.quant = QuantStub()
        self.encoder = nn.Sequential(nn.Linear((observed - 1) * 2, 16), nn.ReLU(), nn.Linear(16, 2))
        self.dequant = DeQuantStub()

    def forward(self, positions):
        traj = self.quant(positions)
        steps = traj[:, 1:] - traj[:, :-1]
        return self.dequant(self.encoder(steps.flatten(1)))


def example_input():
    generator = torch.Generator().manual_seed(0)
    start = torch.rand(6, 1, 2, generator=generator) * 12 + 1
    velocity = (torch.rand(6, 1, 2, generator=generator) - 0.5) * 0.6
    return start + velocity * torch.arange(8.0).view(1, 8, 1)


def build():
    torch.manual_seed(0)
    return trace_qat(MotionEncoder(), example_input(), INT8_FAKE_QUANT)
