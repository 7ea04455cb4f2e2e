"""No findings: integer and shape comparisons are exact, whatever the data went through."""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub

# `if x.size(0) == 1` is control flow on a traced value: torch.fx cannot trace it.
FX_TRACEABLE = False


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        if x.size(0) == 1:
            x = x * 2.0
        best_is_one = torch.argmax(x, -1) == 1
        return self.dequant(x), best_is_one


def example_input():
    return torch.randn(1, 2, 4, 4)
