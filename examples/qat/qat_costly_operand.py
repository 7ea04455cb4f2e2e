"""A fix that would make the model worse, and one that would not, in one traced QAT model
(PyTorch's default qconfig, int8).

The features pass the stub and a Linear; a float offset from the input, as small as they are
but for one outlier two hundred times larger, is added to them without a stub
(unquantized-operand), and a bool mask from the float input gates them (bool-arith). The mask's
fix is exact: a 0/1 cast on a fake quant of scale 1. The offset's fix gives it a fake quant of
its own, whose int8 step (the outlier's range over 255 levels) rounds every other offset to 0:
the simulated output falls far below the format's resolution and loses far more than the 1 dB
--fix allows, so --fix --input drops that rewrite, keeps the mask's, and lists the dropped one
with the SQNR it would have cost. The offset's finding stays: it needs a decision in the model
(scale it down, or quantize it apart from the features) that no rewrite can make.
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
        self.linear = nn.Linear(4, 4)
        self.dequant = DeQuantStub()

    def forward(self, x, offset):
        h = self.linear(self.quant(x))
        keep = x[:, :1] > 0
        h = h * keep
        return self.dequant(h + offset)


def example_input():
    generator = torch.Generator().manual_seed(9)
    x = torch.randn(16, 4, generator=generator)
    offset = torch.randn(16, 4, generator=generator) * 0.5
    offset[3, 2] = 200.0  # the outlier that sets the offset's scale
    return x, offset


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
