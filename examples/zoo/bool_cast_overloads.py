"""A padding flag cast to bool in the overloads real code uses: `.to(x.device, torch.bool)` and
`.to(dtype=torch.bool)`.

The last channel of each token is a 0/1 padding flag that passes the stub with the features.
`(1.0 - is_pad).to(x.device, torch.bool)` is `is_pad != 1` on a quantized value: 1.0 is no
longer exactly 1.0 after the stub, 1.0 minus it is not 0, and padded tokens count as valid.
TorchScript records the device overload (`aten::to.device(self, device, dtype, ...)`), where the
dtype is the third operand, and the keyword form as `to.dtype_layout`: qlint reads the dtype by
its name in the op's schema, whatever its position.

Expected findings:
  line 31 shared-stub-mask   `self.quant` quantizes the padding flag together with the features
  line 33 eq-nonzero-const   `(1.0 - is_pad).to(x.device, torch.bool)` is `is_pad != 1`
  line 34 eq-nonzero-const   `(1.0 - is_pad).to(dtype=torch.bool)`, the same comparison
Not expected: anything at line 36, a float cast in the same overload.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


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
        valid = (1.0 - is_pad).to(x.device, torch.bool)
        also_valid = (1.0 - is_pad).to(dtype=torch.bool)
        h = self.proj(x[:, :, :-1])
        weight = (1.0 - is_pad).to(x.device, torch.float32)
        h = h.masked_fill(~(valid & also_valid)[:, :, None], 0.0) * weight[:, :, None]
        return self.dequant(h)


def example_input():
    generator = torch.Generator().manual_seed(3)
    tokens = torch.randn(2, 6, 5, generator=generator) * 4
    tokens[:, :, -1] = 0.0
    tokens[0, 4:, -1] = 1.0  # padding
    tokens[1, 5:, -1] = 1.0
    return tokens
