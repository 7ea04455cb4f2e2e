"""A detection decode that takes the top 8 of 64 scores and gathers the boxes and the class ids
of those rows with the same indices: `boxes[idx], classes[idx], top`.

Flow: `get_default_qat_qconfig("fbgemm")`, `prepare_qat`, calibration, `torch.jit.trace`. The 8
best scores lie within a thousandth of each other in pairs, closer than a step of the scores'
fake quant: once quantized they tie, and topk returns the same 8 rows in another order. The
boxes show it themselves (each row is paired with float's); the class ids, one number a row and
never quantized, cannot, but they are gathered by the same indices: paired in the boxes' order,
they are float's (public round 29's CenterTrack: the boxes paired at 46.8 dB, the class ids
"0.0 dB", a sim-divergence error on an output no quant point touches). qlint must report nothing
with `--input`.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant_scores = QuantStub()
        self.quant_boxes = QuantStub()
        self.dequant_scores = DeQuantStub()
        self.dequant_boxes = DeQuantStub()

    def forward(self, scores, boxes, classes):
        scores = self.dequant_scores(self.quant_scores(scores))
        boxes = self.dequant_boxes(self.quant_boxes(boxes))
        top, idx = torch.topk(scores, 8)
        return boxes[idx], classes[idx], top


def example_input():
    generator = torch.Generator().manual_seed(29)
    scores = torch.rand(64, generator=generator) * 0.4
    best = torch.tensor([0.900, 0.901, 0.920, 0.921, 0.940, 0.941, 0.960, 0.961])
    scores[torch.randperm(64, generator=generator)[:8]] = best
    boxes = torch.rand(64, 4, generator=generator) * 10
    classes = torch.randint(0, 5, (64,), generator=generator).float()
    return scores, boxes, classes


def build():
    return trace_default_qat(Model(), example_input(), "fbgemm")
