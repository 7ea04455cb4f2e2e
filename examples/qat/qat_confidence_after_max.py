"""A YOLO-style candidate filter after the DeQuantStub: each anchor's best class score and its
class id (`conf, j = scores.max(1, keepdim=True)`), then the anchors whose best score passes the
confidence threshold (`conf.view(-1) > 0.5`).

Expected findings (static): none; with the inputs, the simulation's own: the class ids change
where two classes are near-tied, and the threshold flips where a best score lies within a step
of 0.5. The threshold reads the max's values, which are the rounded best scores whichever class
wins: its flips are that rounding, not the class ids' changes (public round 13's YOLOv5 NMS:
"though its operands carry no rounding: they come from `max` on line 730", where PyTorch saw the
argmax unchanged at every flipped row).
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
        self.head = nn.Linear(8, 4)
        self.dequant = DeQuantStub()

    def forward(self, features):
        scores = torch.sigmoid(self.dequant(self.head(self.quant(features))))
        conf, j = scores.max(1, keepdim=True)
        keep = conf.view(-1) > 0.5
        return conf, j, keep


def example_input():
    return torch.randn(512, 8, generator=torch.Generator().manual_seed(3)) * 0.5


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
