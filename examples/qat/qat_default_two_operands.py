"""Two unquantized operands of very different ranges in a traced QAT model with PyTorch's default
QAT qconfig, whose fake quants are FusedMovingAvgObsFakeQuantize modules.

Flow: `get_default_qat_qconfig("fbgemm")` (quint8 with reduce_range: 0..127, affine),
`prepare_qat`, calibration on the example input, observers disabled, `torch.jit.trace` in eval
mode. A trajectory head shifts the quantized features by a small per-track offset (about 0.01)
and scales them by a wide per-track gain (about 100); neither passed a QuantStub.

qlint must find (traced: the statement range of each line):
  line 34 unquantized-operand  `offset` joins the quantized features
  line 35 unquantized-operand  `gain` multiplies them

`qlint --fix --input` gives each its own quant point: a clone of the stub's fused FakeQuantize
module, registered on the model and called in forward, starting at the symmetric scale
MinMaxObserver computes for that operand alone (tests/fix/check_new_fake_quants.py checks both
against PyTorch's observer: one scale for the other's range would ruin the model). The model's
own disable_fake_quant reaches the clones: with every fake_quant_enabled flag zeroed, the fixed
model computes what the original does (tests/fix/check_fixed.py --flags-off).
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, features, offset, gain):
        x = self.quant(features)
        shifted = x + offset
        scaled = shifted * gain
        return self.dequant(scaled)


def example_input():
    generator = torch.Generator().manual_seed(3)
    features = torch.randn(4, 8, generator=generator)
    offset = torch.randn(4, 8, generator=generator) * 0.01
    gain = torch.rand(4, 8, generator=generator) * 100
    return features, offset, gain


def build():
    return trace_default_qat(Model(), example_input(), "fbgemm")
