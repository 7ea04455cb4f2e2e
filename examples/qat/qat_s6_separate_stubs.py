"""S6 as a traced int16 QAT model: the recommended form stays clean after tracing."""
from qat import trace_int16_qat
from seed_input import actors_input
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.quant_mask = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x):
        mask = (x[:, :, :, -1] == 1).to(torch.float)
        data = self.quant(x)
        mask = self.quant_mask(mask)
        out = data * mask[:, :, :, None]
        return self.dequant(out)


def example_input():
    return actors_input()


def build():
    return trace_int16_qat(Model(), example_input())
