"""A model that writes into its own buffer through a helper function: forward passes
`self.total` to `accumulate`, which adds the batch's mean to it in place. The graph of forward
shows no write into module state (the write is on the helper's parameter), so only the run can
tell: `qlint sim -j 2` must see the buffer's version move, run the batches again one after
another, and give the figures of `-j 1` (Sim.BatchesAtOnceGiveTheFiguresOfOneAtATime)."""
import os

import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


@torch.jit.script
def accumulate(total: torch.Tensor, x: torch.Tensor):
    total.add_(x.mean())


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()
        self.register_buffer("total", torch.zeros(()))

    def forward(self, x):
        q = self.quant(x)
        accumulate(self.total, q)
        return self.dequant(q + self.total)


def write(out):
    torch.jit.script(Model().eval()).save(os.path.join(out, "state_through_helper.pt"))
    torch.save(torch.linspace(-1.0, 3.0, 8).reshape(2, 4), os.path.join(out, "state_through_helper_input.pt"))
