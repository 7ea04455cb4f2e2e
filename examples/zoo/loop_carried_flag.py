"""A tracker refines its tracks in a `for` loop and tests each track's flag with `== 1` on the
flags the loop carries, as iterative refinement code does.

The positions and the 0/1 flags pass stubs of their own; each pass moves the live tracks by a
damped step of themselves and reverses the order of the flags. The flag comparison reads the
flags the loop carries, so `--fix` carries a float twin of them through the loop beside them, from
the flags' float input (no layer on the way, which a float copy would run a second time).

Expected findings:
  line 29 eq-nonzero-const  `live[..., 0] == 1` inside the loop, on the loop-carried flags
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self, num_iters: int = 3):
        super().__init__()
        self.num_iters = num_iters
        self.quant_positions = QuantStub()
        self.quant_flags = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, positions, flags):
        pos = self.quant_positions(positions)
        live = self.quant_flags(flags)
        for _ in range(self.num_iters):
            alive = live[..., 0] == 1
            pos = torch.where(alive[..., None], pos + torch.tanh(pos) * 0.1, pos)
            live = torch.flip(live, [1])
        return self.dequant(pos)


def example_input():
    generator = torch.Generator().manual_seed(0)
    positions = torch.randn(1, 6, 7, generator=generator)
    flags = torch.tensor([1.0, 1.0, 0.0, 1.0, 0.0, 1.0]).view(1, 6, 1)
    return positions, flags
