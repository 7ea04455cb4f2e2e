"""An anchor-free detection head decoded on every pyramid level in a loop, as FCOS-style heads
are: a score threshold per level, the two box edges from the cell centres minus and plus the
regressed distances, one `torch.stack` element per line, and the edges of cells under the
threshold zeroed by the bool mask.

Expected findings (a trace unrolls the loop into one copy of each line per level; the traced QAT
model's fixes give each copy a fake quant of its own, and the copies stay one finding each,
with the operand as written, `keep`, not the trace's `keep0`, and without the line's comma):
  line 47 bool-arith  `(centres - offset[:, 0]) * keep`: the bool threshold mask in `*`
  line 48 bool-arith  `(centres + offset[:, 1]) * keep`
The threshold `score > 0.5` flips a few cells of some levels once quantized (simulation only);
the fixes do not touch it, so never-worse must count its flips over all the levels on its line,
not take one level's count for the line's. The cell centres come from `torch.arange` of a size:
a constant to the toolchain, no unquantized operand.
"""
from typing import List

import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
import torch.nn.functional as F

FX_TRACEABLE = False  # `torch.arange(offset.shape[2])`: torch.fx cannot pass a traced size to arange


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.dequant = DeQuantStub()
        self.cls = nn.Conv2d(4, 1, 1)
        self.reg = nn.Conv2d(4, 2, 1)
        self.strides: List[int] = [8, 16, 32]

    def forward(self, image):
        x = self.quant(image)
        levels = [x, F.avg_pool2d(x, 2), F.avg_pool2d(x, 4)]
        boxes: List[torch.Tensor] = []
        i = 0
        for f in levels:
            score = torch.sigmoid(self.cls(f)).flatten(1)
            keep = score > 0.5
            offset = self.reg(f).flatten(2) * float(self.strides[i])
            centres = (torch.arange(offset.shape[2], dtype=torch.float32) + 0.5) * float(self.strides[i])
            box = torch.stack([
                (centres - offset[:, 0]) * keep,
                (centres + offset[:, 1]) * keep,
            ], dim=1)
            boxes.append(box)
            i += 1
        return self.dequant(torch.cat(boxes, 2))


def example_input():
    return torch.randn(2, 4, 16, 16, generator=torch.Generator().manual_seed(1))
