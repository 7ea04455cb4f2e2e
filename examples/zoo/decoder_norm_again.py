"""A transformer decoder in the style of set-prediction detectors: a shared norm applied to each
layer's output for the auxiliary heads, and once more to the last layer's output for the final
one.

Expected findings: none. Traced after QAT (qat/qat_decoder_norm_again) the norm's output fake
quant runs on each layer's output on one line (the module shared on purpose) and then on the
last of them again: the same tensor, whose values its scale already covers, is no second tensor.
"""
from typing import List

import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.dequant = DeQuantStub()
        self.layers = nn.ModuleList([nn.Linear(8, 8) for _ in range(3)])
        self.norm = nn.LayerNorm(8)

    def forward(self, queries):
        x = self.quant(queries)
        intermediate: List[torch.Tensor] = []
        for layer in self.layers:
            x = torch.relu(layer(x))
            intermediate.append(self.norm(x))
        x = self.norm(x)
        intermediate[-1] = x
        return self.dequant(torch.stack(intermediate))


def example_input():
    return torch.randn(2, 5, 8, generator=torch.Generator().manual_seed(10))
