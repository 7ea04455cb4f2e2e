"""A mask made by a factory with a `dtype` argument: `torch.ones_like(scores, dtype=torch.bool)`.

Detection-head style: a keep mask starts all True, the background class is filled with 0 (False), and
the mask is multiplied into the quantized class scores. Only the operator's schema says that
`ones_like`'s result takes its dtype from the `dtype` argument; its first operand (`scores`,
float) does not give it.

Expected findings:
  line 29 bool-arith  `scores * keep`: a bool tensor in `*`
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.head = nn.Linear(8, 4)
        self.dequant = DeQuantStub()
        self.register_buffer("background", torch.tensor([3]))

    def forward(self, x):
        scores = self.head(self.quant(x))
        # All classes but the background are kept.
        keep = torch.ones_like(scores, dtype=torch.bool).index_fill(1, self.background, 0)
        return self.dequant(scores * keep)


def example_input():
    return torch.randn(2, 8, generator=torch.Generator().manual_seed(0))
