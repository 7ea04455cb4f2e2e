"""A feature map with one channel zeroed in place (`feats[:, 0] = 0.0`), then a 0/1 flag read back.

Detection-head style: the first channel is a "background" score that the head clears before
taking the last feature column as a valid flag and gating the features with it. In TorchScript
`feats[:, 0] = 0.0` is an in-place `fill_` on a view of `feats`: it changes `feats` itself. The
flag comparison (`== 1.0` on a quantized value) and the bool gate are hazards; the fix for the
comparison would read a float twin of `feats` computed beside it, but a twin copies how `feats`
was computed, not the later write through the view, so the comparison would see the background
channel uncleared: float results would change. qlint must not rewrite it that way.

Expected findings:
  line 33 eq-nonzero-const  `feats[:, :, :, -1] == 1.0` after the stub
  line 34 bool-arith        `x * valid[..., None]`: a bool mask in the quantized path
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


FX_TRACEABLE = False  # `feats[:, 0] = 0.0`: torch.fx cannot trace an item assignment


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        feats = x * 1.0
        feats[:, 0] = 0.0
        valid = feats[:, :, :, -1] == 1.0
        return self.dequant(x * valid[..., None])


def example_input():
    # Channel 0's flags are all 1 (they survive only if the channel is not cleared first),
    # channel 1 has a 0 and a 1.
    x = torch.rand(1, 2, 4, 4, generator=torch.Generator().manual_seed(0)) * 4.0
    x[0, 0, :, -1] = 1.0
    x[0, 1, :, -1] = torch.tensor([1.0, 0.0, 1.0, 0.0])
    return x
