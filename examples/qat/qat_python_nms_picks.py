"""A detection head whose non-maximum suppression is a Python loop, as detection code without
torchvision writes it: each round picks the best remaining box with `.item()` and drops the boxes
that overlap it. Traced after default QAT.

The picks are Python numbers: the trace cannot follow them, and writes the example input's picks
into the archive as one constant, which `boxes[picked]` and the scores' `[picked]` read. Every input then
gets the rows the example picked, and a simulation picks the same rows in its float and quantized
runs (public round 26: an SSD's `hard_nms`). The corner columns `[:, [0, 2]]` are a literal of the
code, also a constant, and silent.

Expected findings:
  line 49 frozen-by-trace  the picks, first read by `boxes[picked]`
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat


def hard_nms(boxes, scores, iou_threshold: float, top_k: int):
    order = scores.argsort(descending=True)
    picked = []
    while order.numel() > 0 and len(picked) < top_k:
        current = order[0]
        picked.append(current.item())
        rest = order[1:]
        lo = torch.max(boxes[current, :2], boxes[rest, :2])
        hi = torch.min(boxes[current, 2:], boxes[rest, 2:])
        overlap = (hi - lo).clamp(min=0).prod(dim=1)
        area = (boxes[:, 2:] - boxes[:, :2]).prod(dim=1)
        iou = overlap / (area[current] + area[rest] - overlap)
        order = rest[iou <= iou_threshold]
    return picked


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.head = nn.Linear(8, 5)
        self.dequant = DeQuantStub()

    def forward(self, feats):
        out = self.dequant(self.head(self.quant(feats)))
        centres, sizes = out[:, :2].sigmoid(), out[:, 2:4].sigmoid() * 0.3
        boxes = torch.cat([centres - sizes, centres + sizes], dim=1)
        picked = hard_nms(boxes, out[:, 4].sigmoid(), 0.3, 4)
        kept = boxes[picked]
        return kept[:, [0, 2]], out[:, 4][picked]


def example_input():
    generator = torch.Generator().manual_seed(5)
    return torch.randn(24, 8, generator=generator)


def build():
    return trace_default_qat(Detector(), example_input())
