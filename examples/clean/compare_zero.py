"""No findings: comparisons with 0 are exact under symmetric quantization."""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        nonzero = torch.logical_not(x == 0)
        positive = x > 0
        out = torch.where(nonzero, x, x * 0.5)
        return self.dequant(out), positive


def example_input():
    # Sparse activations as the comparisons with 0 expect: exact zeros, and nonzero values well
    # outside the band that int8 rounding sends to 0 (half a step is about 0.012 here).
    x = torch.randn(1, 2, 4, 4)
    return torch.where(x.abs() < 0.25, torch.zeros_like(x), x)
