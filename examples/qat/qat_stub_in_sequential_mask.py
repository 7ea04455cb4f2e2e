"""One QuantStub quantizes a float 0/1 padding mask in forward and is also the last module of the
token embedding's nn.Sequential, as a wrapper written for QAT may reuse a stub. The mask
is tested with `== 0` in an attention helper that two encoder layers call. Traced after QAT with
PyTorch's default qconfig for fbgemm (per-channel fused weight fake quants).

The trace reaches the stub's FakeQuantize from forward and from the Sequential: it passes the
module's buffers to it as arguments before the tensor (`forward(observer_enabled,
fake_quant_enabled, scale, zero_point, padding)`). --fix once read the first of them as the
mask's float values and failed its own verification (public round 22's Annotated Transformer:
exit 2, nothing written). qlint's float run must also keep the weights in float, as PyTorch's
`disable_fake_quant` does (it kept the per-channel weight fake quants on).

Expected findings:
  line 52 shared-stub-mask     the padding mask shares the stub's scale with the embedded tokens
  line 53 reused-stub          the embedding applies the mask's stub to the tokens
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat

TOKENS, WIDTH = 6, 8


def masked_attention(query, key, padding):
    scores = torch.matmul(query, key.transpose(-2, -1))
    scores = scores.masked_fill(padding == 0, -1e9)
    return torch.matmul(scores.softmax(dim=-1), key)


class EncoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.project = nn.Linear(WIDTH, WIDTH)

    def forward(self, x, padding):
        return masked_attention(self.project(x), x, padding.unsqueeze(1))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant_tokens = QuantStub()
        self.quant = QuantStub()
        self.embed = nn.Sequential(nn.Linear(WIDTH, WIDTH), self.quant)
        self.first = EncoderLayer()
        self.second = EncoderLayer()
        self.dequant = DeQuantStub()

    def forward(self, tokens, padding):
        padding = self.quant(padding)
        x = self.embed(self.quant_tokens(tokens))
        x = self.first(x, padding)
        return self.dequant(self.second(x, padding))


def example_input():
    generator = torch.Generator().manual_seed(22)
    tokens = torch.randn(2, TOKENS, WIDTH, generator=generator) * 3.0
    padding = torch.ones(2, TOKENS)
    padding[0, 4:] = 0
    padding[1, 5:] = 0
    return tokens, padding


def build():
    return trace_default_qat(Model(), example_input(), "fbgemm")
