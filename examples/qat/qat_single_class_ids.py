"""A one-class detector's post-process (YOLO with `nc=1`): each box's class id, the argmax over
a single class score, joined to its quantized boxes and score, traced after QAT with PyTorch's
default qconfig.

The ids are all 0 on any input. A new fake quant calibrated on that range would get the
observer's smallest scale (1.2e-7), and a class 1 (the same code trained with two classes, or an
id added later) would come out as 1.5e-5; it starts at scale 1 instead, as other whole numbers do.

Expected findings:
  line 29 unquantized-operand  `ids.float()` joined with the quantized boxes and score
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.head = nn.Linear(8, 4 + 1)
        self.dequant = DeQuantStub()

    def forward(self, features):
        out = self.head(self.quant(features))
        conf, ids = out[:, 4:].max(1, keepdim=True)
        return self.dequant(torch.cat((out[:, :4], conf, ids.float()), 1))


def example_input():
    return torch.randn(64, 8, generator=torch.Generator().manual_seed(4)) * 2.0


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
