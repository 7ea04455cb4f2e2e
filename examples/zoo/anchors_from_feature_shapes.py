"""An anchor-free detection head whose anchor points are built from the feature maps' sizes after
the DeQuantStubs, as YOLOv8-style heads do (`h, w = f.shape[2:]`, then `arange` grids).

The body returns its feature maps beside the box and class maps; both go through DeQuantStubs
and everything after is float post-processing: decode, scores, the best class joined as a float
column. A trace records the DeQuantStubs' calls without their tensors; the reads of the feature
maps' sizes that follow must not be taken for what the stubs dequantized (public round 16: the
boxes stayed "quantized", and a fake quant went into the float post-processing).

Expected findings: none.
"""
from typing import List

import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Body(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, 2, 1)
        self.down = nn.Conv2d(8, 8, 3, 2, 1)
        self.box = nn.Conv2d(8, 4, 1)
        self.cls = nn.Conv2d(8, 3, 1)

    def forward(self, x):
        fine = self.stem(x)
        coarse = self.down(fine)
        levels = [fine, coarse]
        box = torch.cat([self.box(f).flatten(2) for f in levels], 2)
        cls = torch.cat([self.cls(f).flatten(2) for f in levels], 2)
        return levels, box, cls


def anchor_points(levels: List[torch.Tensor], strides: List[float]):
    points = []
    scales = []
    for i, level in enumerate(levels):
        h, w = level.shape[2], level.shape[3]
        ys = torch.arange(h, dtype=level.dtype) + 0.5
        xs = torch.arange(w, dtype=level.dtype) + 0.5
        grid_y, grid_x = torch.meshgrid(ys, xs, indexing="ij")
        points.append(torch.stack((grid_x, grid_y), -1).view(-1, 2))
        scales.append(torch.full((h * w, 1), strides[i], dtype=level.dtype))
    return torch.cat(points).t(), torch.cat(scales).t()


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.body = Body()
        self.dequant_box = DeQuantStub()
        self.dequant_cls = DeQuantStub()

    def forward(self, image):
        levels, box, cls = self.body(self.quant(image))
        box = self.dequant_box(box)
        cls = self.dequant_cls(cls)
        points, stride = anchor_points(levels, [2.0, 4.0])
        near, far = box.chunk(2, 1)
        corners = torch.cat((points - near, points + far), 1) * stride
        scores = cls.sigmoid()
        best, label = scores.max(1, keepdim=True)
        return torch.cat((corners, best, label.float()), 1)


def example_input():
    generator = torch.Generator().manual_seed(16)
    return (torch.rand(1, 3, 16, 16, generator=generator),)


# torch.fx cannot pass a traced size to arange.
FX_TRACEABLE = False
