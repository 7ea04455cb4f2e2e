"""unquantized-operand as a traced int8 QAT model: a second input joins the fake-quantized
data without a stub, so the accelerator has no scale for it.

`qlint --fix --input` passes the offset through a new `fake_quantize_per_tensor_affine` of the
model's int8 range (-128..127), with a symmetric scale calibrated on the input."""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import INT8_FAKE_QUANT, trace_qat


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x, offset):
        x = self.quant(x)
        shifted = x + offset
        return self.dequant(shifted)


def example_input():
    generator = torch.Generator().manual_seed(0)
    return torch.randn(1, 16, generator=generator), torch.randn(1, 16, generator=generator) * 0.1


def build():
    return trace_qat(Model(), example_input(), INT8_FAKE_QUANT)
