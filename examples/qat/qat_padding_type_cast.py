"""`(1.0 - is_pad).type(torch.BoolTensor)`, traced after QAT with PyTorch's default qconfig.

Older model code casts with tensor types: `.type(torch.BoolTensor)`. The trace records it as
`aten::to(x, device, dtype, ...)`, the overload whose dtype is the third operand. The model is
examples/zoo/bool_cast_overloads.py with its casts spelled so: the padding flag is the last
channel of a stubbed input, so the cast is `is_pad != 1` on a quantized value (an
eq-nonzero-const at line 21), and the stub quantizes the flag with the features (a
shared-stub-mask at line 19).
"""
import torch
from qat import example_module, trace_default_qat

zoo = example_module("zoo", "bool_cast_overloads")
example_input = zoo.example_input


class Model(zoo.Model):
    def forward(self, tokens):
        x = self.quant(tokens)
        is_pad = x[:, :, -1]
        valid = (1.0 - is_pad).type(torch.BoolTensor)
        h = self.proj(x[:, :, :-1]).masked_fill(~valid[:, :, None], 0.0)
        return self.dequant(h)


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
