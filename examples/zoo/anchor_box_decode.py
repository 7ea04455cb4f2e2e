"""A box decoder as anchor-based detectors write it: the head's deltas scale each anchor's width,
which the decoder reads twice (for the shift of the centre and for the size), with the anchors a
model input.

Expected findings: the anchors never pass a QuantStub, so each product with the head's quantized
deltas is unquantized-operand. `--fix` gives `widths` one new stub for both of its reads (one
scale for one set of values, as a user would write it), not one per read.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.dequant = DeQuantStub()
        self.head = nn.Conv2d(3, 2, 3, padding=1)

    def forward(self, image, anchors):
        deltas = self.head(self.quant(image)).flatten(2).transpose(1, 2)
        widths = anchors[:, 2] - anchors[:, 0]
        shift = deltas[..., 0] * widths
        size = torch.exp(deltas[..., 1]) * widths
        return self.dequant(torch.stack([shift - 0.5 * size, shift + 0.5 * size], dim=2))


def example_input():
    image = torch.randn(1, 3, 4, 4, generator=torch.Generator().manual_seed(7))
    left = torch.rand(16, generator=torch.Generator().manual_seed(8)) * 20
    width = 2 + torch.rand(16, generator=torch.Generator().manual_seed(9)) * 6
    anchors = torch.stack([left, left, left + width, left + width], dim=1)
    return image, anchors
