"""No findings: a hand-written layer norm, `(x - mean) / (std + eps)`, after the QuantStub.

Transformer code (the annotated transformer's `LayerNorm`) normalizes with `x.std(-1)`. Its ONNX
export computes the element count from the tensor's shape (`Shape -> Gather -> ReduceProd ->
Cast`) and divides by it: a size, not data that needs a quant point. An earlier ONNX importer
took it for a float tensor from the input and reported an unquantized operand in every layer.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class LayerNorm(nn.Module):
    def __init__(self, features: int, eps: float = 1e-6):
        super().__init__()
        self.a = nn.Parameter(torch.ones(features))
        self.b = nn.Parameter(torch.zeros(features))
        self.eps = eps

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        std = x.std(-1, keepdim=True)
        return self.a * (x - mean) / (std + self.eps) + self.b


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.proj = nn.Linear(8, 8)
        self.norm = LayerNorm(8)
        self.dequant = DeQuantStub()

    def forward(self, tokens):
        return self.dequant(self.norm(self.proj(self.quant(tokens))))


def example_input():
    return torch.randn(2, 5, 8, generator=torch.Generator().manual_seed(0))
