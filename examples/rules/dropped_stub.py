"""dropped-stub: a float model with QuantStub modules, exported with torch.jit.trace before
prepare: the trace keeps the stub calls without their tensors, so the S1 comparison after the
stub cannot be checked. qlint warns once per dropped stub call."""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub

FX_TRACEABLE = False  # the point of the example is torch.jit.trace


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        mask = x[:, -1] == 1
        return self.dequant(x * mask[:, None])


def example_input():
    torch.manual_seed(0)
    x = torch.randn(2, 4)
    x[:, -1] = torch.tensor([0.0, 1.0])
    return x


def build():
    return torch.jit.trace(Model().eval(), example_input())
