"""Attention with a padding bias of -10000 instead of -inf, as BERT-style encoders build it
(`(1.0 - keep) * -10000.0` added to the scores), traced after QAT with PyTorch's default qconfig.

The bias never passes a quant point (unquantized-operand). A new fake quant would hold it
exactly (0 and -10000 at a scale of about 39), but whatever the bias is added to would then need
a scale spanning 10000, which rounds the scores away: `--fix --input` refuses that quant point,
says why (the value reaches -10000), and writes nothing. The finding stays.

Expected findings:
  line 31 unquantized-operand  the -10000 bias added to the quantized scores
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat


class Model(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.query = nn.Linear(width, width)
        self.key = nn.Linear(width, width)
        self.dequant = DeQuantStub()

    def forward(self, tokens, keep):
        x = self.quant(tokens)
        bias = ((1.0 - keep) * -10000.0).unsqueeze(1)
        scores = torch.bmm(self.query(x), self.key(x).transpose(1, 2))
        weights = (scores + bias).softmax(-1)
        return self.dequant(torch.bmm(weights, x))


def example_input():
    generator = torch.Generator().manual_seed(6)
    tokens = torch.randn(2, 5, 8, generator=generator)
    keep = torch.ones(2, 5)
    keep[1, 3:] = 0.0
    return tokens, keep


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
