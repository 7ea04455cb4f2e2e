"""Attention whose cause is one quant point among four: the padding mask is additive, 0 for
tokens and -10000 for padding, and it is added to the attention scores without a quant point
of its own; the sum then goes through `self.quant_scores`, whose scale the -10000 sets
(10000 / 32767.5 = 0.305). The real scores (within about ±3) keep only a few steps, and the
softmax that follows is far from float: output 0 falls under 40 dB SQNR. The queries', keys'
and values' stubs are not to blame.

`qlint sim --attribute` names `self.quant_scores` (the line marked "the cause").
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant_q = QuantStub()
        self.quant_k = QuantStub()
        self.quant_v = QuantStub()
        self.quant_scores = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, q, k, v, padding):
        q = self.quant_q(q)
        k = self.quant_k(k)
        v = self.quant_v(v)
        bias = padding.float() * -10000.0
        scores = torch.matmul(q, k.transpose(-1, -2)) / 4.0 + bias.unsqueeze(1)
        scores = self.quant_scores(scores)  # the cause
        attention = torch.softmax(scores, dim=-1)
        return self.dequant(torch.matmul(attention, v))


def example_input():
    generator = torch.Generator().manual_seed(7)
    q = torch.randn(2, 6, 16, generator=generator)
    k = torch.randn(2, 6, 16, generator=generator)
    v = torch.randn(2, 6, 16, generator=generator)
    padding = torch.zeros(2, 6, dtype=torch.bool)
    padding[0, 4:] = True
    padding[1, 5:] = True
    return q, k, v, padding
