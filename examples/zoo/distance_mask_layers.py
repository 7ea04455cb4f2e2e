"""Agent attention with a -inf distance mask written by index assignment and passed into layers.

Trajectory models let each agent attend only to agents within a radius: the mask starts as
zeros and `mask[dist > radius] = float("-inf")` writes -inf in place; forward builds it once and
passes it into every attention layer, which adds it to the quantized scores. The mask never
passes a stub (`unquantized-operand`), and no quant point can hold -inf: the finding must say so
(keep it out of the quantized domain) though the fill is an in-place write in another method,
and offer no quant point. Traced after QAT: qat/qat_distance_mask_layers.

Expected findings:
  line 29 unquantized-operand  the -inf mask added to each layer's quantized scores
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class AgentAttention(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.query = nn.Linear(width, width)
        self.key = nn.Linear(width, width)
        self.value = nn.Linear(width, width)
        self.scale = width**-0.5

    def forward(self, x, mask):
        scores = self.query(x) @ self.key(x).t() * self.scale
        # The line both layers report.
        attended = (scores + mask).softmax(-1) @ self.value(x)
        return x + attended


class Model(nn.Module):
    def __init__(self, width: int = 8, radius: float = 1.5):
        super().__init__()
        torch.manual_seed(0)
        self.radius = radius
        self.quant = QuantStub()
        self.embed = nn.Linear(2, width)
        self.layers = nn.ModuleList([AgentAttention(width) for _ in range(2)])
        self.head = nn.Linear(width, 2)
        self.dequant = DeQuantStub()

    def forward(self, positions):
        dist = torch.cdist(positions, positions)
        mask = torch.zeros_like(dist)
        mask[dist > self.radius] = float("-inf")
        x = self.embed(self.quant(positions))
        for layer in self.layers:
            x = layer(x, mask)
        return self.dequant(self.head(x))


def example_input():
    generator = torch.Generator().manual_seed(15)
    return (torch.rand(6, 2, generator=generator) * 3,)


# torch.fx cannot trace the index assignment `mask[dist > radius] = ...` (a Proxy takes no item assignment).
FX_TRACEABLE = False
