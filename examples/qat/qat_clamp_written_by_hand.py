"""A detection head's sizes and scores, dequantized as the tutorial says, then clamped by hand in
the decode: `wh[wh < 0] = 0` and `score.masked_fill_(score > 0.5, 0.5)`.

Flow: `get_default_qat_qconfig("fbgemm")`, `prepare_qat`, calibration, `torch.jit.trace`. Once
quantized, a few sizes just below 0 round to exactly 0 and the `<` gives another result for them,
but the clamp writes 0 where float had them and the quantized run keeps its 0: each such flip
moves the value by no more than the rounding that made it. A clamp written by hand is no decision
and masks no data: qlint must report nothing, also with `--input` (public round 29: CenterTrack's
`wh[wh < 0] = 0` was a sim-divergence error and a shared-stub-mask "confirmed by simulation").
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(3)
        self.quant = QuantStub()
        self.wh = nn.Conv2d(4, 2, 1)
        self.score = nn.Conv2d(4, 4, 1)
        self.dequant_wh = DeQuantStub()
        self.dequant_score = DeQuantStub()

    def forward(self, features):
        x = self.quant(features)
        wh = self.dequant_wh(self.wh(x)).flatten(2)
        score = self.dequant_score(self.score(x)).flatten(1)
        wh[wh < 0] = 0
        score.masked_fill_(score > 0.5, 0.5)
        return wh, score


def example_input():
    generator = torch.Generator().manual_seed(29)
    return (torch.randn(1, 4, 16, 16, generator=generator),)


def build():
    return trace_default_qat(Model(), example_input(), "fbgemm")
