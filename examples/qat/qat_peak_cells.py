"""A heatmap's peaks decoded as CenterNet's `_topk` does: the top 4 scores of the flattened map,
then each pick's cell, `(inds / width).int().float()` and `(inds % width).int().float()`,
traced after QAT with PyTorch's default qconfig.

Four peaks lie within one quantization step of each other: once quantized they tie and topk
returns them in another order. The picks are the same 4 cells (PyTorch: the same set of
indices in float and quantized, the cells in another order at 4 of 4 positions), so the casts
that make cells of the indices change no result: they are compared as the pick is, as a set per
row. The cells are returned as (y, x) rows, which the simulation pairs with float's rows.

Expected findings: none.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat

WIDTH = 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, heat):
        h = self.quant(heat)
        scores, inds = torch.topk(h.view(h.size(0), -1), 4)
        ys = (inds / WIDTH).int().float()
        xs = (inds % WIDTH).int().float()
        return self.dequant(scores), torch.stack([ys, xs], dim=-1)


def example_input():
    """An 8x8 map of low values with peaks 0.9001 to 0.9004 (within the 0.9004/255 step of the
    map's range) at four cells, the later cells higher."""
    heat = torch.rand(2, 1, WIDTH, WIDTH, generator=torch.Generator().manual_seed(5)) * 0.3
    for b in range(2):
        for (y, x), v in zip([(1, 6), (3, 3), (5, 2), (6, 7)], [0.9001, 0.9002, 0.9003, 0.9004]):
            heat[b, 0, y, x] = v
    return heat


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
