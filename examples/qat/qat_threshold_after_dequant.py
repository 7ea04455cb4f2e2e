"""A second-stage box refiner: the proposals' boxes and scores each go through a stub of their
own, and the post-processing, after the scores' DeQuantStub, keeps the proposals whose score
passes a threshold, traced after QAT with an int8 FakeQuantize.

After the DeQuantStub the scores are float again, but they carry the stub's rounding: scores
near the threshold land on its other side (`check --input`: sim-divergence). `--fix` takes the
decision on the stub's float input, through the DeQuantStub (public round 17's SSD: "compare the
float values before the quant point", and `--fix` said nothing on why it did not).

Expected findings: none
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import INT8_FAKE_QUANT, trace_qat


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant_boxes = QuantStub()
        self.quant_scores = QuantStub()
        self.refine = nn.Linear(4, 4)
        self.dequant_deltas = DeQuantStub()
        self.dequant_scores = DeQuantStub()

    def forward(self, boxes, scores):
        deltas = self.dequant_deltas(self.refine(self.quant_boxes(boxes)))
        # Quantized as every input is, and straight back for the post-processing.
        scores = self.dequant_scores(self.quant_scores(scores))
        # The line the simulation's finding names.
        confident = scores > 0.3
        return (boxes + deltas)[confident]


def example_input():
    generator = torch.Generator().manual_seed(17)
    boxes = torch.rand(24, 4, generator=generator) * 4
    scores = 0.3 + (torch.rand(24, generator=generator) - 0.5) * 0.01
    scores[0] = 1.0
    return boxes, scores


def build():
    return trace_qat(Model(), example_input(), INT8_FAKE_QUANT)
