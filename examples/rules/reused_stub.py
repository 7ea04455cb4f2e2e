"""reused-stub: one QuantStub quantizes two different tensors, so they share one scale."""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, features, heading):
        features = self.quant(features)
        heading = self.quant(heading)
        out = torch.cat([features, heading], dim=1)
        return self.dequant(out)


def example_input():
    return torch.randn(1, 8) * 100.0, torch.rand(1, 1)
