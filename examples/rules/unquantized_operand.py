"""unquantized-operand: a second model input joins the quantized data without a stub."""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x, offset):
        x = self.quant(x)
        shifted = x + offset
        return self.dequant(shifted)


def example_input():
    return torch.randn(1, 8), torch.randn(1, 8)
