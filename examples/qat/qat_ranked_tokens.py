"""Tokens ranked by a quantized score and the top 4 gathered (`scores.argsort(descending=True)`
then `gather`, as MAE's masking or a detector's top-k proposals do), traced after QAT with
PyTorch's default qconfig; tokens and scores have a QuantStub each.

Two pairs of scores lie closer than the scores' quantization step: once quantized they tie and
change places, so the output holds the same four tokens in another order. Position by position
that is a large error (SQNR -0.9 dB, in PyTorch too); with its rows paired with float's, it keeps 44.7 dB,
as exact as the tokens' own rounding, and `check --input` reports nothing.

Expected findings: none.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant_tokens = QuantStub()
        self.quant_scores = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, tokens, scores):
        t = self.quant_tokens(tokens)
        s = self.quant_scores(scores)
        order = s.argsort(dim=1, descending=True)[:, :4]
        picked = t.gather(1, order.unsqueeze(-1).expand(-1, -1, t.size(-1)))
        return self.dequant(picked)


def example_input():
    """Eight tokens of distinct features; scores 0.901 and 0.900, 0.701 and 0.700 (closer than
    the 1/255 step of a [0, 1] range) lead, far above the rest."""
    tokens = torch.randn(2, 8, 4, generator=torch.Generator().manual_seed(3))
    scores = torch.tensor([[0.10, 0.900, 0.20, 0.901, 0.0, 0.700, 0.30, 0.701]] * 2) + torch.tensor([[0.0], [0.05]])
    return tokens, scores.clamp(max=1.0)


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
