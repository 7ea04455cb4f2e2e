"""A toolchain's own stub class (here a stand-in): qlint knows it as a quant point when told
with `--quant-stub-class ToolchainQuantStub`; without that it sees no quantization."""
import torch
from torch import nn


class ToolchainQuantStub(nn.Module):
    """Identity in float, like torch.ao.quantization.QuantStub."""

    def forward(self, x):
        return x


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = ToolchainQuantStub()

    def forward(self, x):
        x = self.quant(x)
        valid = x[:, 0] == 1
        return x, valid


def example_input():
    return torch.randn(4, 3)
