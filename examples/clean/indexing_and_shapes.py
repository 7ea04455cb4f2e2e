"""No findings, in both front ends: indexing with `...`, steps and index lists, keyword
arguments, shapes, a submodule, and a dict of outputs, all on properly quantized values."""
from typing import Dict

import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 1)

    def forward(self, x, factor: float = 2.0):
        return torch.relu(self.conv(x)) * factor


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()
        self.scale = Scale()

    def forward(self, x) -> Dict[str, torch.Tensor]:
        x = self.quant(x)
        batch = x.shape[0]
        flat = x.reshape(batch, x.size(1) * x.shape[2] * x.shape[3])
        last = x[..., -1]
        strided = x[:, 1:, ::2, ...]
        picked = x[:, [0, 2]]
        scaled = self.scale(x, factor=3.0)
        pooled = torch.cat([scaled, picked], dim=1).sum(dim=(2, 3), keepdim=True)
        return {"pooled": self.dequant(pooled), "flat": self.dequant(flat),
                "last": self.dequant(last), "strided": self.dequant(strided)}


def example_input():
    return torch.randn(1, 3, 4, 4)
