"""A trajectory normaliser takes each agent's heading from its last step, `dir = traj[:, -1] -
traj[:, -2]`, and rotates the track by it before the encoder, as trajectory forecasters do.
Traced after QAT with int8 fake quants; the positions pass one QuantStub.

The last step is a few tenths of a metre in a 15 m scene, a few steps of the stub's scale
(cancelling-difference), and the angle is read from both of its components. `--fix --input`
computes the step from the stub's float input and gives each component a clone of the model's
FakeQuantize (public round 27: EigenTrajectory's rotation, 31.7 -> 47.4 dB).

Expected findings:
  line 29 cancelling-difference  `traj[:, -1] - traj[:, -2]`, read by the angle twice
  line 33 cancelling-difference  the track relative to its last point
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import INT8_FAKE_QUANT, trace_qat


class HeadingNormaliser(nn.Module):
    def __init__(self, observed: int = 8):
        super().__init__()
        self.quant = QuantStub()
        self.encoder = nn.Linear(observed * 2, 4)
        self.dequant = DeQuantStub()

    def forward(self, positions):
        traj = self.quant(positions)
        dir = traj[:, -1] - traj[:, -2]
        angle = torch.atan2(dir[:, 1], dir[:, 0])
        cos, sin = torch.cos(angle), torch.sin(angle)
        rotation = torch.stack([torch.stack([cos, -sin], dim=1), torch.stack([sin, cos], dim=1)], dim=1)
        rotated = (traj - traj[:, -1:]) @ rotation
        return self.dequant(self.encoder(rotated.flatten(1)))


def example_input():
    generator = torch.Generator().manual_seed(1)
    start = torch.rand(6, 1, 2, generator=generator) * 12 + 1
    velocity = (torch.rand(6, 1, 2, generator=generator) - 0.5) * 0.6
    return start + velocity * torch.arange(8.0).view(1, 8, 1)


def build():
    torch.manual_seed(0)
    return trace_qat(HeadingNormaliser(), example_input(), INT8_FAKE_QUANT)
