"""Detection post-processing inside the quantized region, as a naive QAT wrapper leaves it: the
top-scoring boxes, shifted apart by class with batched NMS's coordinate trick in a scripted helper
(`classes.to(boxes) * (boxes.max() + 1)`), and the classes of the boxes kept. Traced after default
QAT.

The class ids cast to float never pass a QuantStub; --fix --unsafe-fixes gives them a fake quant
as a graph op in the helper, at scale 1, which keeps every id exact (public round 21: a calibrated
scale of 0.0235 made class 1 into 0.988). Once quantized, near-ties among the scores change
places: the same boxes and classes come out in another order, which is no divergence (public
round 21: "14 of which differ" where NMS kept the same set).

Expected findings:
  line 25 unquantized-operand  the class ids, cast to float in the scripted helper
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat

BOXES, KEPT = 64, 16


@torch.jit.script
def shift_by_class(boxes: torch.Tensor, classes: torch.Tensor) -> torch.Tensor:
    offsets = classes.to(boxes) * (boxes.max() + 1.0)
    return boxes + offsets[:, None]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.box = nn.Linear(6, 4)
        self.score = nn.Linear(6, 1)
        self.dequant = DeQuantStub()

    def forward(self, features, classes):
        x = self.quant(features)
        boxes = self.box(x).abs()
        scores = self.score(x)[:, 0]
        top = scores.topk(KEPT).indices
        return self.dequant(shift_by_class(boxes, classes)[top]), classes[top]


def example_input():
    generator = torch.Generator().manual_seed(42)
    features = torch.randn(BOXES, 6, generator=generator)
    classes = torch.randint(0, 4, (BOXES,), generator=generator)
    return features, classes


def build():
    return trace_default_qat(Model(), example_input())
