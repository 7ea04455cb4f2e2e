"""Modules a trace hands to other modules as arguments: a Transformer-style sublayer connection
calls its layer through a lambda (`self.residual(x, lambda y: self.ffn(y))`), and the input's
QuantStub is also the first module of the embedding's nn.Sequential, so the embedding calls the
wrapper's stub. Traced after default QAT: each callee gets the module as a parameter of a class
the trace made, which no module of the model has.

The stub is applied to the tokens in the embedding and to the float padding mask in forward: one
scale for both. qlint's float run must turn off every fake quant reached so, as PyTorch's
disable_fake_quant does (public round 21: a fake quant reached through an argument stayed on in
the float run, which measured 34.4 dB where PyTorch measured 11.2, and the reuse was not seen).

Expected findings:
  line 55 reused-stub          the padding through the stub the embedding applies to the tokens
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat

TOKENS, WIDTH = 6, 8


class SublayerConnection(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.norm = nn.LayerNorm(width)

    def forward(self, x, sublayer):
        return x + sublayer(self.norm(x))


class EncoderLayer(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.ffn = nn.Linear(width, width)
        self.residual = SublayerConnection(width)

    def forward(self, x):
        return self.residual(x, lambda y: self.ffn(y))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        # Registered first, so the stub is known by its place in the embedding.
        self.encoder = nn.Module()
        self.quant = QuantStub()
        self.encoder.embed = nn.Sequential(self.quant, nn.Linear(WIDTH, WIDTH))
        self.layer = EncoderLayer(WIDTH)
        self.dequant = DeQuantStub()

    def forward(self, tokens, padding):
        h = self.encoder.embed(tokens)
        padding = self.quant(padding)
        return self.dequant(self.layer(h) * padding[:, :, None])


def example_input():
    generator = torch.Generator().manual_seed(43)
    tokens = torch.randn(4, TOKENS, WIDTH, generator=generator) * 5.0
    padding = (torch.rand(4, TOKENS, generator=generator) > 0.3).float()
    return tokens, padding


def build():
    return trace_default_qat(Model(), example_input())
