"""Two detection levels whose head outputs are dequantized item by item in lists after the anchor
points are computed, then decoded by a post-processing submodule that scales the boxes to the
image's size, a float input: FCOS-style exports wrapped for QAT.

Expected findings: none. The boxes come from outputs that left the quantized domain at
`self.dequant`, so dividing them by the image size quantizes nothing. Traced after QAT
(qat/qat_levels_post_module) the stubs' calls keep no tensor and run back to back after the op
that made the last anchor points: the outputs they dequantize are the heads' (the regression
through a relu included) that the post-processing call reads beside the points, not the points.
"""
from typing import List

import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub

FX_TRACEABLE = False  # the anchor points from `f.shape` as Python ints


class Decoder(nn.Module):
    def forward(self, points: List[torch.Tensor], cls: List[torch.Tensor], reg: List[torch.Tensor],
                image_size: torch.Tensor):
        boxes: List[torch.Tensor] = []
        scores: List[torch.Tensor] = []
        for p, c, r in zip(points, cls, reg):
            offsets = r.flatten(2).transpose(1, 2)
            boxes.append(torch.cat([p - offsets[..., :2], p + offsets[..., 2:]], -1))
            scores.append(c.sigmoid().flatten(1))
        corners = torch.cat(boxes, 1) / image_size[:, None, :].repeat(1, 1, 2)
        return corners, torch.cat(scores, 1)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.dequant = DeQuantStub()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        self.down = nn.Conv2d(8, 8, 3, stride=2, padding=1)
        self.cls = nn.Conv2d(8, 1, 3, padding=1)
        self.reg = nn.Conv2d(8, 4, 3, padding=1)
        self.decoder = Decoder()

    def points(self, f: torch.Tensor, stride: int):
        h, w = f.shape[-2], f.shape[-1]
        ys = torch.arange(h).repeat_interleave(w)
        xs = torch.arange(w).repeat(h)
        return torch.stack([xs, ys], 1).float() * stride + stride // 2

    def forward(self, image, image_size):
        f1 = self.stem(self.quant(image))
        feats = [f1, self.down(f1)]
        cls = [self.cls(f) for f in feats]
        reg = [self.reg(f).relu() for f in feats]
        points = [self.points(feats[0], 8), self.points(feats[1], 16)]
        cls = [self.dequant(c) for c in cls]
        reg = [self.dequant(r) for r in reg]
        return self.decoder(points, cls, reg, image_size)


def example_input():
    g = torch.Generator().manual_seed(4)
    return torch.randn(2, 3, 16, 16, generator=g), torch.tensor([[16.0, 16.0], [12.0, 14.0]])
