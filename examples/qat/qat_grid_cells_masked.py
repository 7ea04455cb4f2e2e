"""Social pooling over a grid: each neighbour's offset from the agent, through a stub, is turned
into a cell of a 4 x 4 grid over the neighbourhood by `floor(...).long()`; neighbours outside it
are then sent to cell 0 by a write into the cell indices (`cells[~inside] = 0`, the mask from the
float offsets), and their features pooled per cell. Traced after QAT with an int8 FakeQuantize.

The cast truncates quantized values (truncating-cast). On the example inputs the rounding moves
only offsets outside the neighbourhood across a cell edge (2.0 as 1.98), whose cells the model
then overwrites: the simulation judges the cells as the model leaves them, all as in float
(public round 18: "confirmed by simulation: 38 of 125 results differ", an error, for cells every
one of which the model had set to 0). `--fix` casts the float offsets; the write after the cast
does not stop it (before: "changed in place by `aten::index_put_`", no fix).

Expected findings:
  line 36 truncating-cast  cell indices from quantized offsets
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import INT8_FAKE_QUANT, trace_qat


class Model(nn.Module):
    def __init__(self, width: int = 8, grid: int = 4):
        super().__init__()
        torch.manual_seed(0)
        self.grid = grid
        self.quant = QuantStub()
        self.encode = nn.Linear(2, width)
        self.dequant = DeQuantStub()

    def forward(self, offsets):
        inside = ((offsets >= 0.0) & (offsets < 1.0)).all(dim=-1)
        offsets = self.quant(offsets)
        features = self.dequant(self.encode(offsets))
        # The cell of each neighbour, in units of the neighbourhood.
        cells = torch.floor(offsets * self.grid).long()
        cells[~inside] = 0
        index = cells[:, 0] * self.grid + cells[:, 1]
        return torch.zeros(self.grid * self.grid, features.shape[1]).index_add(0, index, features)


def example_input():
    # Inside: away from every cell edge. Outside: on whole numbers, where the rounding of 2.0
    # (to 1.98) moves floor(4 * x) to the cell below.
    inside = torch.tensor([0.1, 0.35, 0.6, 0.85])
    rows = [torch.stack([a, b]) for a in inside for b in inside]
    rows += [torch.tensor(v) for v in ([2.0, 0.1], [3.0, -1.0], [-2.0, 0.6], [5.0, 2.0], [0.35, -3.0])]
    return (torch.stack(rows),)


def build():
    return trace_qat(Model(), example_input(), INT8_FAKE_QUANT)
