"""S5: tiny data (all |x| < 0.01) shares one stub with a 0/1 mask: the 1s set the scale."""
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
        data = x[:, :, :, :-1]
        mask = x[:, :, :, -1]
        out = data * mask[:, :, :, None]
        return self.dequant(out)


def example_input():
    x = actors_input()
    x[:, :, :, :-1] = x[:, :, :, :-1] / 10000.0
    return x
