"""eq-nonzero-const after a selection: a detection heat map's peak compared with 1.

The largest value of a quantized heat map, and its top k, are values of the quantized map: they
lie on its quantization grid, so with a stated scale (a traced QAT model, an ONNX QDQ model)
qlint says exactly what 1 becomes there. Comparing the map with its own max-pooled copy
(CenterNet's peak extraction) compares two values on one grid, which is exact: no finding.

Expected findings:
  line 30 eq-nonzero-const  `peak == 1`
  line 31 eq-nonzero-const  `top == 1`
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from torch.nn import functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x):
        heat = self.quant(x)
        hmax = F.max_pool2d(heat, 3, stride=1, padding=1)
        is_peak = hmax == heat
        peak = heat.amax(dim=1)
        top = heat.flatten(1).topk(4).values
        certain = peak == 1
        top_certain = top == 1
        return self.dequant(heat), is_peak, certain, top_certain


def example_input():
    g = torch.Generator().manual_seed(0)
    return torch.rand(1, 3, 8, 8, generator=g) * 2.5
