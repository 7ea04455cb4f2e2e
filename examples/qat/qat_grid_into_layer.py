"""A trajectory encoder with grid-based social pooling: each agent's velocity goes through a
stub into an embedding, and an occupancy grid of its neighbours, built from their float
positions (cell indices by division and floor, a 1 written into each occupied cell), goes
into a layer of its own. Traced after QAT with PyTorch's default qconfig.

The grid never passed a stub, but the layer it enters is a QAT Linear: converted, its
quantized kernel is handed a float tensor (`quantized::linear` fails), and a toolchain has no
scale for the grid (public round 19's trajectory pooling: qlint said nothing). `--fix` gives
the grid a fake quant of its own, a clone of the layer's output fake quant, which starts at
scale 1: the grid holds only 0 and 1 on the inputs, both exact there.

Expected findings:
  line 40 unquantized-operand  the grid enters a quantized layer without a quant point
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat

CELLS = 4  # per side
CELL_SIZE = 0.5


class Model(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.embed = nn.Linear(2, width)
        self.pool = nn.Linear(CELLS * CELLS, width)
        self.out = nn.Linear(2 * width, 4)
        self.dequant = DeQuantStub()

    def forward(self, velocity, neighbours):
        motion = self.embed(self.quant(velocity))
        cells = torch.div(neighbours / CELL_SIZE + CELLS / 2, 1, rounding_mode="floor")
        cells = cells.clamp(0, CELLS - 1).long()
        grid = torch.zeros(neighbours.shape[0], CELLS * CELLS)
        grid[torch.arange(neighbours.shape[0]), cells[:, 0] * CELLS + cells[:, 1]] = 1.0
        social = self.pool(grid)
        return self.dequant(self.out(torch.cat([motion, social], 1)))


def example_input():
    generator = torch.Generator().manual_seed(19)
    velocity = torch.randn(32, 2, generator=generator)
    neighbours = torch.randn(32, 2, generator=generator)
    return velocity, neighbours


def build():
    return trace_default_qat(Model(), example_input())
