"""Submodules that pass a Dict[str, Tensor] between them: the S1 hazard through the dict.

Detector-style plumbing: the backbone quantizes the input, runs a conv and returns its feature
map and the input's 0/1 validity channel in a dict; the head reads `feats["mask"]` and
compares it with 1. The compared value is a slice of the stub's output, so 1.0 has become
1 + rounding error (PyTorch 1.13, int16 on the example input: scale 0.000104082, 1.0 -> 1.0000186).

Expected findings:
  line 28 shared-stub-mask  `self.quant` quantizes the validity channel together with the data
  line 39 eq-nonzero-const  `feats["mask"] == 1` compares a quantized value with 1 (via the dict)
  line 40 bool-arith        `feats["features"] * valid`: a bool tensor in `*`
"""
from typing import Dict

import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.relu = nn.ReLU()

    def forward(self, x: torch.Tensor) -> Dict[str, torch.Tensor]:
        x = self.quant(x)
        features = self.relu(self.conv(x[:, :3]))
        return {"features": features, "mask": x[:, 3:]}


class MaskedHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 2, 1)

    def forward(self, feats: Dict[str, torch.Tensor]) -> torch.Tensor:
        valid = feats["mask"] == 1
        return self.conv(feats["features"] * valid)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.backbone = Backbone()
        self.head = MaskedHead()
        self.dequant = DeQuantStub()

    def forward(self, x):
        return self.dequant(self.head(self.backbone(x)))


def example_input():
    generator = torch.Generator().manual_seed(0)
    image = torch.randn(1, 3, 8, 8, generator=generator)
    valid = (torch.rand(1, 1, 8, 8, generator=generator) > 0.3).to(torch.float)
    return torch.cat([image, valid], dim=1)
