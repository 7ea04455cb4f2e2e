"""A single-shot detector's class scores: `nn.Softmax` over the class logits, then for each
foreground class a confidence threshold that picks the boxes to keep, traced after QAT with an
int8 FakeQuantize.

Eager QAT gives `nn.Softmax` a fixed-scale fake quant (`FixedQParamsFakeQuantize`, scale 1/256
whatever the data): the threshold on one class's column shares that scale with the other
columns, but no data range sets it, and a stub of its own would get the same scale. Nothing to
report (public round 17's SSD: shared-stub-mask said "the data's range sets its step").

Expected findings: none
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import INT8_FAKE_QUANT, trace_qat


class Model(nn.Module):
    def __init__(self, classes: int = 3):
        super().__init__()
        torch.manual_seed(0)
        self.classes = classes
        self.quant = QuantStub()
        self.softmax = nn.Softmax(dim=-1)
        self.dequant = DeQuantStub()

    def forward(self, logits, boxes):
        scores = self.softmax(self.quant(logits))
        kept = []
        for c in range(1, self.classes):
            confident = scores[:, c] > 0.05
            kept.append((self.dequant(scores[:, c]) * confident).sum() + boxes[confident].sum())
        return torch.stack(kept)


def example_input():
    generator = torch.Generator().manual_seed(17)
    return torch.randn(32, 3, generator=generator) * 3, torch.rand(32, 4, generator=generator)


def build():
    return trace_qat(Model(), example_input(), INT8_FAKE_QUANT)
