"""Pixel boxes of the cells a score threshold keeps, cast to int, traced after default QAT. The
boxes and the scores are input channels, each through a stub of its own.

The threshold flips for scores near 0.5 once quantized, so the quantized run keeps other rows
than float's, and the cast's result has another shape: nothing of it can be compared with the
float run's. The truncating-cast finding's evidence note says so, instead of "leaves all 0
results of this `to` as in float" (public round 20's YOLOv4 decode, whose coordinates were in
fact halved).

Expected findings:
  line 34 truncating-cast  the kept boxes, quantized by their stub, cast to int
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant_boxes = QuantStub()
        self.quant_scores = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, image):
        # Four channels of box corners per cell, then a score channel.
        boxes = self.dequant(self.quant_boxes(image[0, :4])).flatten(1).t()
        scores = self.dequant(self.quant_scores(image[0, 4])).flatten()
        keep = scores > 0.5
        # Pixel boxes of the kept cells.
        pixels = boxes[keep] * 64.0
        return pixels.int()


def example_input():
    generator = torch.Generator().manual_seed(24)
    image = torch.rand(1, 5, 16, 16, generator=generator) * 0.9
    # Three scores just over the threshold, which the stub's step rounds under it.
    image[0, 4, 0, :3] = 0.5005
    return (image,)


def build():
    return trace_default_qat(Model(), example_input())
