"""Boxes converted from centre and size to corners the way YOLO utilities do it, column by column
into a copy (`y = x.clone(); y[:, 0] = x[:, 0] - x[:, 2] / 2; ...`), then a threshold on the
corners inside the model (boxes reaching into the image's left margin), traced after QAT with
PyTorch's default qconfig; the boxes pass one QuantStub.

Once quantized, left edges within half a step of the margin land on the other side of it: the
comparison flips. Its operand is written in place, column by column, into the copy: the float
twin that `--fix` builds copies those writes too (into its own copy, in the same order), so the
comparison can be taken on the float boxes.

Expected findings: none without --input.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat

MARGIN = 4.0


def to_corners(x):
    y = x.clone()
    y[:, 0] = x[:, 0] - x[:, 2] / 2
    y[:, 1] = x[:, 1] - x[:, 3] / 2
    y[:, 2] = x[:, 0] + x[:, 2] / 2
    y[:, 3] = x[:, 1] + x[:, 3] / 2
    return y


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, boxes):
        b = self.quant(boxes)
        corners = to_corners(b)
        in_margin = corners[:, 0] < MARGIN
        return self.dequant(corners), in_margin


def example_input():
    """64 boxes (centre x, centre y, width, height) in a 64-pixel image whose left edges lie
    within 0.02 of the margin, on either side."""
    g = torch.Generator().manual_seed(4)
    size = torch.rand(64, 2, generator=g) * 8 + 2
    left = MARGIN + (torch.rand(64, generator=g) - 0.5) * 0.04
    centre_y = torch.rand(64, generator=g) * 16 + 2
    return torch.stack([left + size[:, 0] / 2, centre_y, size[:, 0], size[:, 1]], 1)


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
