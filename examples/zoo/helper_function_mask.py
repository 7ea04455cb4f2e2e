"""The S1 comparison in a free helper function, called from forward.

Utility-module style: `is_valid(feats)` returns where the validity flag (the last feature) is
set, `feats[..., -1] == 1`, and forward zeroes the invalid rows. The flag was quantized with the
features by the one QuantStub, so 1.0 is no longer exactly 1.0 and every row looks invalid.

Expected findings:
  line 32 shared-stub-mask  `self.quant` quantizes the 0/1 flag column together with the features
  line 20 eq-nonzero-const  `feats[..., -1] == 1` in the helper, on the stub's output
`--fix` passes the stub's float input to the helper as an extra argument (a copy of the helper
in the archive; `is_valid(x, x_float)` in the Python suggestion).
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


def is_valid(feats: torch.Tensor) -> torch.Tensor:
    """Which rows have their validity flag set."""
    return feats[..., -1] == 1


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.proj = nn.Linear(5, 4)
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        out = self.proj(x[..., :-1]).masked_fill(~is_valid(x)[..., None], 0.0)
        return self.dequant(out)


def example_input():
    generator = torch.Generator().manual_seed(0)
    features = torch.randn(1, 5, 5, generator=generator)
    flag = torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0]).view(1, 5, 1)
    return torch.cat([features, flag], dim=-1)
