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
    return torch.randn(1, 2, 4, 4)
