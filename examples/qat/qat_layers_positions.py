"""Positions added in every layer, traced after QAT with PyTorch's default qconfig.

A small encoder adds the same positional embedding, a float model input that never passes a
stub, to its tokens in each of its layers (one class, two instances). The trace gives each
instance a forward of its own, both on the same Python line: the unquantized operand is found
once per layer (line 20), and --fix gives each layer's operand a fake quant of its own.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat


class Layer(nn.Module):
    def __init__(self, channels=8):
        super().__init__()
        self.mix = nn.Linear(channels, channels)

    def forward(self, tokens, positions):
        return torch.relu(self.mix(tokens + positions))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.layers = nn.ModuleList([Layer(), Layer()])
        self.dequant = DeQuantStub()

    def forward(self, tokens, positions):
        x = self.quant(tokens)
        for layer in self.layers:
            x = layer(x, positions)
        return self.dequant(x)


def example_input():
    generator = torch.Generator().manual_seed(10)
    return torch.randn(2, 5, 8, generator=generator), torch.randn(1, 5, 8, generator=generator) * 0.5


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
