"""A detection head decoding boxes the way torchvision-style detectors do: a box coder object (a
plain class, no nn.Module) scales the head's deltas by anchor widths passed in as a model input,
and the kept boxes take their size prior from a constant table, indexed by the boxes the scores
kept.

Expected findings: one unquantized-operand in the coder's `decode`, whose anchor widths never
passed a QuantStub. `--fix` inlines the coder's call into `forward` (the coder has no module to
hold a stub) and quantizes the widths there. The size prior picked from the constant table by
data-dependent indices is still the table's values, which the toolchain knows as it knows any
constant: no finding.
"""
from typing import Tuple

import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class BoxCoder:
    def __init__(self, weights: Tuple[float, float]):
        self.weights = weights

    def decode(self, deltas, anchors):
        widths = anchors[:, 2] - anchors[:, 0]
        return deltas[:, 0] / self.weights[0] * widths


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.dequant = DeQuantStub()
        self.head = nn.Conv2d(3, 3, 3, padding=1)
        self.coder = BoxCoder((10.0, 5.0))
        self.register_buffer("size_priors", torch.linspace(1.0, 8.0, 16))

    def forward(self, image, anchors):
        out = self.head(self.quant(image)).flatten(2)[0].t()
        keep = torch.where(out[:, 2] > 0.0)[0]
        shift = self.coder.decode(out[keep], anchors[keep])
        size = torch.exp(out[keep, 1]) * self.size_priors[keep]
        return self.dequant(torch.stack([shift, size], dim=1))


def example_input():
    image = torch.randn(1, 3, 4, 4, generator=torch.Generator().manual_seed(12))
    left = torch.rand(16, generator=torch.Generator().manual_seed(13)) * 20
    width = 2 + torch.rand(16, generator=torch.Generator().manual_seed(14)) * 6
    return image, torch.stack([left, left, left + width, left + width], dim=1)
