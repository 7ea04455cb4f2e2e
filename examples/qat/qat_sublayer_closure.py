"""A pre-norm transformer block whose residual wrapper calls its sublayer through a closure
(`self.residual(h, lambda y: self.attention(y, pad))`), traced after QAT with PyTorch's default
qconfig. Closures cannot be scripted, so such models reach qlint traced only.

The trace passes the attention module into the residual wrapper's forward as an argument and
calls it there; qlint resolves that call to the one module of its type, so what the attention
does with the mask is checked. Before, the call was opaque: the comparison inside was never
seen, and with `--input` the call's result took the bool mask's dtype (a false bool-arith on the
residual `+`).

The tokens' last feature is a padding flag (1 = padded), quantized with the features by one stub.

Expected findings:
  line 40 eq-nonzero-const  `pad == 1` inside the attention, on the quantized flag
  line 55 shared-stub-mask  the flag quantized with the features
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat


class Residual(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)

    def forward(self, x, sublayer):
        return x + sublayer(self.norm(x))


class Attention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.query = nn.Linear(width, width)
        self.value = nn.Linear(width, width)

    def forward(self, x, pad):
        scores = torch.bmm(self.query(x), x.transpose(1, 2))
        scores = scores.masked_fill(pad[:, None, :] == 1, -1e4)
        return torch.bmm(torch.softmax(scores, dim=-1), self.value(x))


class Model(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.embed = nn.Linear(width, width)
        self.attention = Attention(width)
        self.residual = Residual(width)
        self.dequant = DeQuantStub()

    def forward(self, tokens):
        t = self.quant(tokens)
        pad = t[:, :, -1]
        h = self.embed(t)
        h = self.residual(h, lambda y: self.attention(y, pad))
        return self.dequant(h)


def example_input():
    generator = torch.Generator().manual_seed(4)
    tokens = torch.randn(2, 6, 8, generator=generator) * 4.0
    tokens[:, :, -1] = 0.0
    tokens[1, 4:, -1] = 1.0
    return tokens


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
