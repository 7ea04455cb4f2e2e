"""Pixel boxes of the cells a score threshold keeps, cast to int, traced after default QAT.

The threshold flips for scores near 0.5 once quantized, so the quantized run keeps other rows
than float's, and the cast's result has another shape: nothing of it can be compared with the
float run's. The truncating-cast finding's evidence note says so, instead of "leaves all 0
results of this `to` as in float" (public round 20's YOLOv4 decode, whose coordinates were in
fact halved).

Expected findings:
  line 33 truncating-cast  the kept boxes, quantized by the conv's output fake quant, cast to int
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.boxes = nn.Conv2d(1, 4, 1)
        self.dequant = DeQuantStub()

    def forward(self, image):
        x = self.quant(image)
        boxes = self.dequant(self.boxes(x))[0].flatten(1).t()
        scores = self.dequant(x).flatten()
        keep = scores > 0.5
        # Pixel boxes of the kept cells.
        pixels = boxes[keep] * 64.0
        return pixels.int()


def example_input():
    generator = torch.Generator().manual_seed(24)
    image = torch.rand(1, 1, 16, 16, generator=generator) * 0.9
    # Three scores just under the threshold, which the stub's step (about 0.9 / 255) rounds over it.
    image[0, 0, 0, :3] = 0.4997
    return (image,)


def build():
    return trace_default_qat(Model(), example_input())
