"""Attention with a padding bias of -10000 instead of -inf, as BERT-style encoders build it
(`(1.0 - keep) * -10000.0` added to the scores), traced after QAT with PyTorch's default qconfig.

The bias never passes a quant point (unquantized-operand). A new fake quant would hold it
exactly (0 and -10000 at a scale of about 39), but whatever the bias is added to would then need
a scale spanning 10000, which rounds the scores away: `--fix --input` refuses that quant point,
says why (the value reaches -10000), and writes nothing. The finding stays.

Expected findings:
  line 24 unquantized-operand  the -10000 bias added to the quantized scores
"""
import torch
from qat import example_module, trace_default_qat

# The query and key projections of examples/zoo/additive_padding_mask.py; only the bias differs.
attention = example_module("zoo", "additive_padding_mask")


class Model(attention.Model):
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
