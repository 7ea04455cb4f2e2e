"""One int8 FakeQuantize (a QuantStub's) for three inputs, traced after QAT: data `a` whose range
sets a step of 0.5, half-steps `b`, and a flag `c` of 0 or 1.3 compared with 1.3.

`--fix --input` keeps the comparison's rewrite (it reads `c` before the fake quant: the flips go)
and drops the new fake quant for `b`: on its own range (up to 10) its step no longer holds b's
half-steps exactly, and output 1 gets worse. The dropped rewrite is reported with what it did on
top of the kept one, not with the kept rewrite's gain (public round 16: "though it also did
better: `==` ... flips 0 instead of 1144", a gain the dropped stub could not have made).

Expected findings:
  line 31 reused-stub       `c` through `a`'s stub
  line 32 eq-nonzero-const  `qc == 1.3`
  line 33 reused-stub       `b` through `a`'s stub
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import INT8_FAKE_QUANT, trace_qat



class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, a, b, c):
        qa = self.quant(a)
        # The lines the findings name.
        qc = self.quant(c)
        hit = qc == 1.3
        qb = self.quant(b)
        return self.dequant(qa), self.dequant(qb), self.dequant(qa * hit)


def example_input():
    generator = torch.Generator().manual_seed(16)
    a = torch.round(torch.randn(64, generator=generator) * 20) / 2
    a[0] = 63.75  # the shared scale 63.75 / 127.5 = 0.5
    b = torch.randint(-1, 2, (64,), generator=generator).float() * 0.5
    b[0] = 10.0  # its own scale 10 / 127.5: 0.5 is off its grid
    c = (torch.rand(64, generator=generator) < 0.5).float() * 1.3
    return a, b, c


def build():
    return trace_qat(Model(), example_input(), INT8_FAKE_QUANT)
