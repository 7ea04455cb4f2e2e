"""A head that returns its result in a dict (`return {"y": ...}`, as detection and segmentation
heads do), read by forward as `out["y"]`, traced after QAT with PyTorch's default qconfig; the
head's second input shares the image's QuantStub.

A trace records no source line for a submodule's call, so an output finding of `check --input`
would have no line: it is reported where the head computes the value (line 24, the head's
`return`). With `--min-sqnr 60` the int8 output (about 35 dB) is such a finding.

Expected findings:
  line 36 reused-stub  `self.quant` applied to the small bias `b` after the data `x`
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x, b):
        return {"y": self.fc(x) + b}


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.head = Head()
        self.dequant = DeQuantStub()

    def forward(self, x, b):
        x = self.quant(x)
        b = self.quant(b)
        out = self.head(x, b)
        return self.dequant(out["y"])


def example_input():
    """Data in about [-3, 3] and a bias a hundred times smaller, which the shared scale crushes."""
    g = torch.Generator().manual_seed(0)
    return torch.randn(1, 200, 8, generator=g), 0.01 * torch.randn(1, 200, 1, generator=g)


def build():
    torch.manual_seed(0)
    return trace_default_qat(Model(), example_input(), "qnnpack")
