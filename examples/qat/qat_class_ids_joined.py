"""A detection post-process that joins each box's best class id to its quantized scores, as
YOLOX's `torch.cat((boxes, class_conf, class_pred.float()), 1)` does, traced after QAT with
PyTorch's default qconfig.

The class ids come from `max` over the quantized class scores: integers cast to float, which
never passed a quant point and are joined with quantized data (unquantized-operand). Their new
fake quant starts at scale 1, which keeps every id exact; a scale calibrated on their range
(about 11/255 here) rounded them off the integers, and a later `.long()` could pick another
class (public YOLOX: class 78 became 78.07).

Expected findings:
  line 31 unquantized-operand  `ids.float()` joined with the quantized boxes and scores
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat


class Model(nn.Module):
    def __init__(self, classes=12):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.head = nn.Linear(8, 4 + classes)
        self.dequant = DeQuantStub()

    def forward(self, features):
        out = self.head(self.quant(features))
        conf, ids = out[:, 4:].max(1, keepdim=True)
        return self.dequant(torch.cat((out[:, :4], conf, ids.float()), 1))


def example_input():
    return torch.randn(64, 8, generator=torch.Generator().manual_seed(4)) * 2.0


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
