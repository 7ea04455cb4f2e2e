"""Power normalization of pooled features, as retrieval and fine-grained heads do it: the
signed square root `sign(x) * sqrt(|x|)` of quantized features, traced after QAT with
PyTorch's default qconfig.

`torch.sign` of the quantized features gives -1, 0 and 1, which no quant point quantizes
before they multiply the quantized magnitudes. `--fix --input` gives the sign a fake quant of
its own, a clone of the model's, which starts at scale 1: -1, 0 and 1 are exact there (the
inputs show only whole numbers). Calibrated, its scale would be 2/255 and 1 would become
0.9961 (public round 19's trajectory pooling, `F.lp_pool2d(x, 1, k)`, which computes
`sign(x) * relu(|x|)`).

Expected findings:
  line 32 unquantized-operand  the sign meets the quantized magnitudes without a quant point
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat


class Model(nn.Module):
    def __init__(self, channels: int = 4, width: int = 8):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.embed = nn.Linear(channels, width)
        self.dequant = DeQuantStub()

    def forward(self, features):
        x = self.embed(self.quant(features))
        # The signed square root of each feature.
        x = torch.sign(x) * torch.sqrt(torch.abs(x) + 1e-6)
        return self.dequant(x)


def example_input():
    generator = torch.Generator().manual_seed(20)
    return torch.randn(16, 4, generator=generator) * 3


def build():
    return trace_default_qat(Model(), example_input())
