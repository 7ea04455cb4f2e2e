"""A model prepared for deployment with `torch.jit.freeze`, which inlines every attribute as a
constant: its convolution weights and its anchor table are tensor constants of the archive now.
They are the model's own, not values a trace froze: frozen-by-trace stays silent on a model
whose constants include layer weights.

Expected findings: none
"""
import torch
from torch import nn



class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.register_buffer("anchors", torch.tensor([[8.0, 16.0], [16.0, 32.0]]))

    def forward(self, x):
        y = self.conv(x).flatten(2).mean(-1)
        return y[:, :2] * self.anchors[0] + y[:, 2:] * self.anchors[1]


def example_input():
    return torch.randn(1, 3, 8, 8)


def build():
    return torch.jit.freeze(torch.jit.script(Model().eval()))
