"""Attention with an additive padding mask filled with -inf, as nn.MultiheadAttention builds it.

The key padding mask (True = padded) becomes an additive bias, `0` for real tokens and `-inf` for
padding, added to the quantized attention scores by `torch.baddbmm`. The bias never passes a
stub: an unquantized operand (`unquantized-operand`; baddbmm adds its first operand like `+`).

No quant point can hold -inf: calibrated on the inputs, its scale is infinite and every output
becomes NaN. `--fix` must not write that. The finding sees the -inf fill and says so (keep the
bias out of the quantized domain), offering no quant point, scripted or traced (qat/qat_additive_
padding_mask); one holding infinity unseen is measured on the inputs and refused. It stays.

Expected findings:
  line 32 unquantized-operand  the -inf bias added to the quantized scores
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.query = nn.Linear(width, width)
        self.key = nn.Linear(width, width)
        self.dequant = DeQuantStub()

    def forward(self, tokens, padding):
        x = self.quant(tokens)
        bias = torch.zeros_like(padding, dtype=torch.float).masked_fill(padding, float("-inf")).unsqueeze(1)
        scores = torch.baddbmm(bias, self.query(x), self.key(x).transpose(1, 2))
        return self.dequant(torch.bmm(scores.softmax(-1), x))


def example_input():
    generator = torch.Generator().manual_seed(6)
    tokens = torch.randn(2, 5, 8, generator=generator)
    padding = torch.zeros(2, 5, dtype=torch.bool)
    padding[1, 3:] = True
    return tokens, padding
