"""A box regressor whose cause is one stub among three: the anchors' centres (up to 500 px) and
the predicted offsets (within 0.002) go through one stub, `self.quant_boxes`, called twice,
so its scale is set by the centres (500 / 32767.5 = 0.0153) and every offset rounds to 0. The
refined boxes keep the centres, but the output that is the offsets alone keeps no signal:
its SQNR falls far under 40 dB. The image features and the scores have stubs of their own.

`qlint sim --attribute` names `self.quant_boxes` for output 1 (both of its lines); with only it
quantized the output is as bad, with it in float the output is fine again.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant_boxes = QuantStub()
        self.quant_features = QuantStub()
        self.quant_scores = QuantStub()
        self.head = nn.Linear(16, 4)
        self.dequant = DeQuantStub()

    def forward(self, centres, offsets, features, scores):
        c = self.quant_boxes(centres)  # the cause
        o = self.quant_boxes(offsets)  # the cause, again
        f = self.quant_features(features)
        s = self.quant_scores(scores)
        refined = c + o + self.head(f) * 0.01
        return self.dequant(refined), self.dequant(o * s)


def example_input():
    generator = torch.Generator().manual_seed(5)
    centres = torch.rand(8, 4, generator=generator) * 500.0
    offsets = (torch.rand(8, 4, generator=generator) - 0.5) * 0.004
    features = torch.randn(8, 16, generator=generator)
    scores = torch.rand(8, 4, generator=generator) + 0.5
    return centres, offsets, features, scores
