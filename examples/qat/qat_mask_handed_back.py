"""An encoder takes the features and their 0/1 validity mask, both through one QuantStub, and
makes the mask a float with `mask.float()`; the caller then tests the same mask with `== 1`.

Flow: `get_default_qat_qconfig("fbgemm")`, `prepare_qat`, calibration, `torch.jit.trace`. The mask
is a float tensor already, so `mask.float()` returns the mask itself, and the trace records that
cast as the mask's value from then on: the archive's encoder returns the mask beside its
features, and the caller's `mask == 1` reads what comes out of the call. In float that output is
the mask unchanged, so the comparison can still be taken on the stub's float input (public round
28's LED: "no automatic fix: the value comes out of `model_initializer.forward`, which computes
it from the quantized tensor it is given").

Expected findings: line 41 shared-stub-mask, line 41 reused-stub (the mask through the features'
stub) and line 43 eq-nonzero-const (`mask == 1` after it), each with a fix.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, mask):
        valid = mask.float()
        return self.fc(x) * valid[:, :1]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(28)
        self.quant = QuantStub()
        self.dequant = DeQuantStub()
        self.encoder = Encoder()

    def forward(self, x, mask):
        x = self.quant(x)
        mask = self.quant(mask)
        h = self.encoder(x, mask)
        keep = (mask == 1).float()
        return self.dequant(h), keep


def example_input():
    generator = torch.Generator().manual_seed(28)
    x = torch.randn(6, 4, generator=generator) * 20
    mask = torch.ones(6, 4)
    mask[4:] = 0
    return x, mask


def build():
    return trace_default_qat(Model(), example_input(), "fbgemm")
