"""A YOLO-style head decoded in place, traced after default QAT: the decode overwrites the
objectness and class channels with their sigmoid, then scales the class scores by the
objectness (`x[..., 5:] *= x[..., 4:5]`).

A product of one channel with the others is how a 0/1 mask channel gates data (SPEC S5), but
here the channel was overwritten in place with sigmoid scores after the head's fake quant: a
score in (0, 1), not a mask, so no shared-stub-mask (public round 19's YOLOv3 decode: once its
threshold was fixed, the product was called "the mask value 1.0 quantizes to 0.99389").

Expected findings: none
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat

CLASSES = 3


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.head = nn.Conv2d(3, 5 + CLASSES, 3, stride=4, padding=1)
        self.dequant = DeQuantStub()

    def forward(self, image):
        p = self.dequant(self.head(self.quant(image)))
        batch, channels, rows, cols = p.shape
        x = p.permute(0, 2, 3, 1).reshape(batch, rows * cols, channels).contiguous()
        x[..., 4:] = x[..., 4:].sigmoid()
        # Class confidence = objectness * class score.
        x[..., 5:] *= x[..., 4:5]
        return x


def example_input():
    generator = torch.Generator().manual_seed(21)
    return (torch.rand(2, 3, 32, 32, generator=generator),)


def build():
    return trace_default_qat(Model(), example_input())
