"""A classifier whose only output is the class id (`logits.argmax(-1)`), traced after QAT with
PyTorch's default qconfig, as a deployment export that returns labels does.

No static rule fires: nothing in the model is wrong as written. With `--input`, near-ties
between two classes pick the other class once the logits are rounded (int8): `check --input`
reports the argmax at its line though the model has no float output whose SQNR could show it.

Expected findings: none (static).
"""
import torch
from torch import nn
from torch.ao.quantization import QuantStub
from qat import trace_default_qat


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.fc = nn.Linear(16, 10)

    def forward(self, features):
        logits = self.fc(self.quant(features))
        return logits.argmax(-1)


def example_input():
    """512 feature rows: enough near-ties between two classes for some to flip at int8."""
    return torch.randn(512, 16, generator=torch.Generator().manual_seed(0))


def build():
    torch.manual_seed(0)
    return trace_default_qat(Model(), example_input(), "qnnpack")
