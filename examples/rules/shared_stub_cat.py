"""shared-stub-mask: a float-cast validity mask is concatenated with data into one stub."""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, points):
        valid = (points[:, :, 0] != 0).to(torch.float)
        packed = torch.cat([points, valid[:, :, None]], dim=2)
        packed = self.quant(packed)
        return self.dequant(packed)


def example_input():
    return torch.randn(1, 16, 3) * 1000.0
