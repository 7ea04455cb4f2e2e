"""reused-stub as a traced int16 QAT model: one QuantStub quantizes large features and a 0..1
gain, so the gain gets the features' FakeQuantize scale (about 250 / 32767.5) and keeps only
about 7 bits.

`qlint --fix --input` gives the gain a new `fake_quantize_per_tensor_affine` of the same range
in place of the shared FakeQuantize, with a symmetric scale calibrated on the input."""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_int16_qat


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, features, gain):
        features = self.quant(features)
        gain = self.quant(gain)
        return self.dequant(features * gain)


def example_input():
    generator = torch.Generator().manual_seed(0)
    return torch.randn(1, 8, generator=generator) * 100.0, torch.rand(1, 8, generator=generator)


def build():
    return trace_int16_qat(Model(), example_input())
