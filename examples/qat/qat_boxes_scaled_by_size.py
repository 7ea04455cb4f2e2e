"""A detection head whose kept boxes are scaled by the image size, which goes through the image's
QuantStub. Traced after default QAT: the moving-average observer settles between the pixels'
range and the size, so the size 64 is clipped far below itself and every box corner shrinks.

How many boxes pass `score > 0.1` is decided on quantized scores: once quantized, the output has
another shape than in float, and no rewrite of the size changes that. --fix gives the size a fake
quant of its own (exact: a whole number), which brings the corners back to float's; the summary
shows it by the largest values, as the shapes cannot (public round 20's YOLOv4 decode: "shape
differs -> shape differs" for a fix that doubled every coordinate back).

Expected findings:
  line 33 reused-stub          the image size through the image's stub
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat

SIDE = 32


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.head = nn.Conv2d(1, 4, 1)
        self.dequant = DeQuantStub()

    def forward(self, image, image_size):
        x = self.quant(image)
        # One stub for both inputs, as a wrapper applying it to every input does.
        image_size = self.quant(image_size)
        boxes = self.dequant(self.head(x))[0].flatten(1).t()
        score = boxes[:, 0] + boxes[:, 1]
        keep = score > 0.1
        return boxes[keep] * image_size


def example_input():
    generator = torch.Generator().manual_seed(37)
    return torch.rand(1, 1, SIDE, SIDE, generator=generator), torch.tensor([64.0])


def build():
    return trace_default_qat(Model(), example_input())
