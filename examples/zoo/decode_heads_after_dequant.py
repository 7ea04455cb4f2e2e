"""An anchor-free detector exported the way FCOS-style code splits it: each level's class and box
maps go through DeQuantStubs of their own, called back to back as the arguments of the decoder,
with the level's anchor points computed beside them.

Expected findings: none. Traced after QAT (qat/qat_decode_heads_after_dequant) the stubs' calls
keep no tensor and follow one another: together they dequantize the head outputs the decoder
then reads (in its own order), not the anchor points.
"""
from typing import List

import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub

FX_TRACEABLE = False  # `maps.shape[-1]` as a Python int: torch.fx cannot pass a traced size on


def decode(boxes, scores, points):
    keep = scores.amax(1) > 0.5
    centres = points + boxes[:, :2]
    return torch.cat([centres - boxes[:, 2:], centres + boxes[:, 2:]], dim=1) * keep[:, None].float()


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.dequant_scores = DeQuantStub()
        self.dequant_boxes = DeQuantStub()
        self.scores = nn.ModuleList([nn.Conv2d(3, 2, 3, padding=1) for _ in range(2)])
        self.boxes = nn.ModuleList([nn.Conv2d(3, 4, 3, padding=1) for _ in range(2)])

    def forward(self, image):
        x = self.quant(image)
        scores: List[torch.Tensor] = []
        boxes: List[torch.Tensor] = []
        for score_head, box_head in zip(self.scores, self.boxes):
            scores.append(torch.sigmoid(score_head(x)).flatten(2)[0].t())
            boxes.append(box_head(x).flatten(2)[0].t())
            x = nn.functional.max_pool2d(x, 2)
        out: List[torch.Tensor] = []
        for level in range(len(scores)):
            size = int(scores[level].shape[0] ** 0.5)
            cells = torch.arange(size * size)
            points = torch.stack([cells % size, torch.div(cells, size, rounding_mode="floor")], 1).float()
            out.append(decode(self.dequant_boxes(boxes[level]), self.dequant_scores(scores[level]), points))
        return torch.cat(out, 0)


def example_input():
    return torch.randn(1, 3, 8, 8, generator=torch.Generator().manual_seed(16))
