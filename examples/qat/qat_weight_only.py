"""Weight-only QAT: the activation fake quant is an Identity, the weights are fake-quantized.

A scoring head whose class score is compared with 1 (a "certain" detection). With weight-only
QAT (`QConfig(activation=torch.nn.Identity, weight=default_weight_fake_quant)`, as deployments
that keep int16 activations in float use) no activation is quantized, but the linear layer's
weights are rounded to int8, so its output is no longer what the float weights give and the
comparison with 1 fails where the float model met it.

Expected finding:
  line 29 eq-nonzero-const  `scores == 1` on a value that carries `self.head.weight_fake_quant`
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QConfig, QuantStub, default_weight_fake_quant

from qat import prepare_calibrate_trace


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.head = nn.Linear(4, 3)
        self.dequant = DeQuantStub()

    def forward(self, x):
        scores = self.head(self.quant(x))
        certain = scores == 1
        return self.dequant(scores), certain


def example_input():
    generator = torch.Generator().manual_seed(4)
    return torch.randn(2, 4, generator=generator)


def build():
    return prepare_calibrate_trace(Model(), example_input(),
                                   QConfig(activation=nn.Identity, weight=default_weight_fake_quant))
