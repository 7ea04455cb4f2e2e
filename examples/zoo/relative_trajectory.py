"""A trajectory forecaster takes the observed positions of a few agents in metres, quantizes them
with one QuantStub, and makes them relative to each agent's last observed point before its
encoder, as trajectory models do (the prediction is added back to that point at the end).

The stub's scale spans the whole scene, 15 m; the motion between frames is a few tenths of a
metre, so at 8 bits the difference keeps a few steps of that scale (cancelling-difference). At
int16, a scripted model's default, a step is 1/65536 of the scene and nothing is reported;
`check --input --bits 8` reports it, and `--fix --input --bits 8` computes the difference from
the stub's float input and gives it a QuantStub of its own.

Expected findings: none (int16). With `--input --bits 8`:
  line 29 cancelling-difference  `traj - traj[:, -1:]`
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self, observed: int = 8, predicted: int = 4):
        super().__init__()
        self.predicted = predicted
        self.quant = QuantStub()
        self.encoder = nn.Sequential(nn.Linear(observed * 2, 32), nn.ReLU(), nn.Linear(32, predicted * 2))
        self.dequant = DeQuantStub()

    def forward(self, positions):
        traj = self.quant(positions)
        rel = traj - traj[:, -1:]
        motion = self.encoder(rel.flatten(1)).view(-1, self.predicted, 2)
        return self.dequant(motion), self.dequant(traj[:, -1:])


def example_input():
    generator = torch.Generator().manual_seed(0)
    start = torch.rand(6, 1, 2, generator=generator) * 12 + 1
    velocity = (torch.rand(6, 1, 2, generator=generator) - 0.5) * 0.6
    return start + velocity * torch.arange(8.0).view(1, 8, 1)
