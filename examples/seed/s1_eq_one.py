"""S1: `x == 1` after a QuantStub. 1.0 dequantizes to 1.0007, so the mask is all False."""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from seed_input import actors_input


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        mask = x[:, :, :, -1] == 1
        out = x * mask[:, :, :, None]
        return self.dequant(out)


def example_input():
    return actors_input()
