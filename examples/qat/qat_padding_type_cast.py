"""`(1.0 - is_pad).type(torch.BoolTensor)`, traced after QAT with PyTorch's default qconfig.

Older model code casts with tensor types: `.type(torch.BoolTensor)`. The trace records it as
`aten::to(x, device, dtype, ...)`, the overload whose dtype is the third operand. The padding
flag is the last channel of a stubbed input, so the cast is `is_pad != 1` on a quantized value
(an eq-nonzero-const at line 26), and the stub quantizes the flag with the features (a
shared-stub-mask at line 24).
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
        self.proj = nn.Linear(4, 8)
        self.dequant = DeQuantStub()

    def forward(self, tokens):
        x = self.quant(tokens)
        is_pad = x[:, :, -1]
        valid = (1.0 - is_pad).type(torch.BoolTensor)
        h = self.proj(x[:, :, :-1]).masked_fill(~valid[:, :, None], 0.0)
        return self.dequant(h)


def example_input():
    generator = torch.Generator().manual_seed(3)
    tokens = torch.randn(2, 6, 5, generator=generator) * 4
    tokens[:, :, -1] = 0.0
    tokens[0, 4:, -1] = 1.0  # padding
    tokens[1, 5:, -1] = 1.0
    return tokens


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
