"""No findings: the comparison runs on the float input, before any stub, where it is exact."""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x):
        keep = (x[:, :, :, -1] == 1).to(torch.float)
        x = self.quant(x * keep[:, :, :, None])
        return self.dequant(x)


def example_input():
    return torch.randn(1, 2, 4, 4)
