"""A sinusoidal positional encoding buffer added after a QuantStub: no findings.

The classic transformer recipe: `pe` is computed once in `__init__`, registered as a buffer of
shape (max_len, 1, d_model), and `x + self.pe[: x.size(0)]` adds the rows for the sequence
length. The buffer is a constant of the model (saved in the archive, the same for every
input), like a weight, not a model input that skipped its stub.

Expected findings: none (in particular no `unquantized-operand` at the `+`).
FX: torch.fx cannot slice a real buffer with a traced size (`self.pe[: x.size(0)]`), so this
model is not FX-traceable (FX_TRACEABLE = False), like the PyTorch tutorial it follows.
"""
import math

import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub

FX_TRACEABLE = False


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, max_len: int = 64, dropout: float = 0.1):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        """x: (seq_len, batch, d_model)."""
        x = x + self.pe[: x.size(0)]
        return self.dropout(x)


class Model(nn.Module):
    def __init__(self, d_model: int = 16):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.embed = nn.Linear(4, d_model)
        self.pos = PositionalEncoding(d_model)
        self.out = nn.Linear(d_model, 3)
        self.dequant = DeQuantStub()

    def forward(self, src):
        x = self.embed(self.quant(src))
        x = self.pos(x)
        return self.dequant(self.out(torch.relu(x)))


def example_input():
    generator = torch.Generator().manual_seed(0)
    return torch.randn(10, 2, 4, generator=generator)
