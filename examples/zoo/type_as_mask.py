"""`mask.type_as(x)` and `(1.0 - q).to(torch.bool)`: where dtype and quantization part ways.

Transformer-encoder style masked mean pooling. The bool `pool_mask` (which tokens the summary
averages over: all but the leading summary token) is a model input that never passes a stub;
`pool_mask.type_as(h)` takes only its dtype from the quantized `h`: the result is an exact 0/1
float tensor that carries no quantization (and no error), so using it with `h` mixes an
unquantized operand into the quantized path. Separately the last token feature is a quantized
0/1 padding flag, and `(1.0 - is_pad).to(torch.bool)` is `is_pad != 1` on a quantized value:
a flag of 1.0 is no longer exactly 1.0, 1.0 minus it is not 0, and padding tokens count as
valid (PyTorch 1.13, int16 on the example input: scale 7.02588e-05, 1.0 -> 0.9999935).

Expected findings:
  line 33 shared-stub-mask     `self.quant` quantizes the padding flag together with the features
  line 35 eq-nonzero-const     `(1.0 - is_pad).to(torch.bool)` is `is_pad != 1` on a quantized value
  line 39 unquantized-operand  `h * keep[:, :, None]`: `keep` comes from the input mask, no stub
  line 40 unquantized-operand  `pooled / keep.sum(...)...`: from the input mask, no stub
Not expected: anything at line 38 (`type_as` itself) or an eq-nonzero-const on `keep`.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.proj = nn.Linear(5, 16)
        self.dequant = DeQuantStub()

    def forward(self, tokens, pool_mask):
        x = self.quant(tokens)
        is_pad = x[:, :, -1]
        valid = (1.0 - is_pad).to(torch.bool)
        h = self.proj(x[:, :, :-1])
        h = h.masked_fill(~valid[:, :, None], 0.0)
        keep = pool_mask.type_as(h)
        pooled = (h * keep[:, :, None]).sum(dim=1)
        pooled = pooled / keep.sum(dim=1, keepdim=True).clamp(min=1.0)
        return self.dequant(pooled)


def example_input():
    generator = torch.Generator().manual_seed(0)
    tokens = torch.randn(2, 6, 6, generator=generator)
    lengths = torch.tensor([4, 6])
    padding = torch.arange(6)[None, :] >= lengths[:, None]
    tokens[:, :, -1] = padding.to(torch.float)
    pool_mask = torch.arange(6)[None, :].expand(2, 6) > 0
    return tokens, pool_mask
