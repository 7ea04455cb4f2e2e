"""A multi-level head whose levels are collected first and decoded after the DeQuantStub, one
level at a time, as FCOS-style exports split the network from its post-processing.

Expected findings: none. Each level's cell columns are added to offsets that left the quantized
domain at `self.dequant(levels[i])`. Traced after QAT (qat/qat_decode_levels_after_dequant) the
stub's call keeps no tensor, and the op just before it computed another level: the level
dequantized is the one the first op after the call reads, a tensor nothing read since its head
made it.
"""
from typing import List

import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub

FX_TRACEABLE = False  # `maps.shape[-1]` as a Python int: torch.fx cannot pass a traced size on


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.dequant = DeQuantStub()
        self.heads = nn.ModuleList([nn.Conv2d(3, 3, 3, padding=1) for _ in range(3)])

    def forward(self, image):
        x = self.quant(image)
        levels: List[torch.Tensor] = []
        for head in self.heads:
            levels.append(head(x))
            x = nn.functional.max_pool2d(x, 2)
        boxes: List[torch.Tensor] = []
        for i in range(len(levels)):
            maps = self.dequant(levels[i])
            width = maps.shape[-1]
            scores, idx = torch.sigmoid(maps[:, 0]).flatten(1).topk(4)
            offsets = maps[:, 1:].flatten(2).gather(2, idx[:, None, :].expand(-1, 2, -1))
            cols = (idx % width).float() + offsets[:, 0]
            rows = torch.div(idx, width, rounding_mode="floor").float() + offsets[:, 1]
            boxes.append(torch.stack([cols, rows, scores], dim=2) * float(2**i))
        return torch.cat(boxes, 1)


def example_input():
    return torch.randn(2, 3, 16, 16, generator=torch.Generator().manual_seed(5))
