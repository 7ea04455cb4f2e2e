"""A two-level detection head whose levels each end in a DeQuantStub and whose decoding writes the
box columns in place (`y[..., 0:2] = ...`, as YOLO heads do), then post-processing in forward
that scales the class scores by the objectness in place and keeps the best class above a
threshold, traced after QAT with PyTorch's default qconfig.

The class argmax flips on near-ties once quantized (`check --input`: sim-divergence). No
automatic fix: the float twin would have to repeat the head's writes in another function. The
note says so in the same words on every run (public round 18's YOLOv7 head: three different
reasons in 8 runs of one command, as the writes were taken in the order of their addresses).

Expected findings: none
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat


class Head(nn.Module):
    def __init__(self, channels=(4, 8), outputs: int = 9):
        super().__init__()
        self.levels = nn.ModuleList(nn.Sequential(nn.Conv2d(c, outputs, 1), DeQuantStub()) for c in channels)
        self.outputs = outputs

    def forward(self, features):
        decoded = []
        for level, x in zip(self.levels, features):
            y = level(x).sigmoid().permute(0, 2, 3, 1).reshape(x.shape[0], -1, self.outputs)
            y[..., 0:2] = y[..., 0:2] * 2.0 - 0.5
            y[..., 2:4] = (y[..., 2:4] * 2.0) ** 2
            decoded.append(y)
        return torch.cat(decoded, dim=1)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.stem = nn.Conv2d(3, 4, 3, padding=1)
        self.down = nn.Conv2d(4, 8, 3, stride=2, padding=1)
        self.head = Head()

    def forward(self, image):
        small = self.stem(self.quant(image))
        boxes = self.head([small, self.down(small)])
        scores = boxes[0].clone()
        scores[:, 5:] *= scores[:, 4:5]
        best, cls = scores[:, 5:].max(1)
        return boxes, cls, best > 0.25


def example_input():
    generator = torch.Generator().manual_seed(18)
    return (torch.rand(1, 3, 32, 32, generator=generator),)


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
