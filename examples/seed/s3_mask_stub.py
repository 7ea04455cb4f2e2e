"""S3: the float mask gets a second stub; but it is cut from data that shares `self.quant`."""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from seed_input import actors_input


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.quant_mask = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        mask = torch.logical_not(x[:, :, :, -1] == 0).to(torch.float)
        mask = self.quant_mask(mask)
        out = x * mask[:, :, :, None]
        return self.dequant(out)


def example_input():
    return actors_input()
