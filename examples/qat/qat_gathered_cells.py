"""A heatmap decoder that gathers each peak's cell coordinates before adding its sub-cell offset
(CenterNet's `_gather_feat(xs.view(b, -1, 1), inds).view(b, K)`, then `xs.view(b, K, 1) +
reg[:, :, 0:1]`), traced after QAT with PyTorch's default qconfig.

Each class map's top cells, then the top of those (two topks): the cell coordinates are whole
numbers cast to float, then gathered by the second topk's picks and viewed: the offsets'
new fake quant for them starts at scale 1, which keeps them exact, as for a cast's result
itself (public round 11's CenterNet got a calibrated scale 15/255 or 0.1176 there, which rounds
cell 3 to 2.94 or 3.06).

Expected findings:
  line 45 unquantized-operand  `xs` added to the quantized offsets
  line 46 unquantized-operand  `ys` added to the quantized offsets
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat

WIDTH, K, CLASSES = 8, 4, 2


def gather_rows(values, picks):
    """`values` (b, n) at `picks` (b, K)."""
    return values.view(values.size(0), -1, 1).gather(1, picks.unsqueeze(2)).view(picks.size(0), -1)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant_heat = QuantStub()
        self.quant_offsets = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, heat, offsets):
        h = self.quant_heat(heat)
        reg = self.quant_offsets(offsets)
        b = h.size(0)
        class_scores, class_inds = h.view(b, CLASSES, -1).topk(K)  # the top K cells of each class
        scores, picks = class_scores.view(b, -1).topk(K)  # the top K of those
        inds = gather_rows(class_inds, picks)
        cell_x = gather_rows((class_inds % WIDTH).float(), picks)
        cell_y = gather_rows(torch.div(class_inds, WIDTH, rounding_mode="floor").float(), picks)
        at = reg.view(b, 2, -1).permute(0, 2, 1).gather(1, inds.unsqueeze(2).expand(-1, -1, 2))
        xs = cell_x.view(b, K, 1) + at[:, :, 0:1]
        ys = cell_y.view(b, K, 1) + at[:, :, 1:2]
        return self.dequant(torch.cat([xs, ys], 2)), self.dequant(scores)


def example_input():
    """Background below 0.4 and clear peaks in each class map; offsets in [0, 1)."""
    heat = torch.rand(2, CLASSES, WIDTH, WIDTH, generator=torch.Generator().manual_seed(5)) * 0.4
    for b, cells in enumerate([(3, 17, 40, 62), (9, 12, 33, 50)]):
        for rank, cell in enumerate(cells):
            heat[b, rank % CLASSES].view(-1)[cell] = 0.95 - 0.15 * rank
    offsets = torch.rand(2, 2, WIDTH, WIDTH, generator=torch.Generator().manual_seed(6))
    return heat, offsets


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
