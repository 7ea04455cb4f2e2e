"""A feature map with one channel zeroed in place by a helper (`clear_background(feats)`, which
does `feats[:, 0] = 0.0`), then a 0/1 flag read back.

Detection-head style: the first channel is a "background" score that the head's utility clears
before the head takes the last feature column as a valid flag and gates the features with it. In
TorchScript `feats[:, 0] = 0.0` is an in-place `fill_` on a view of `feats`: it changes `feats`
itself, inside another function. The flag comparison (`== 1.0` on a quantized value) and the bool
gate are hazards; the fix for the comparison would read a float twin of `feats` computed beside
it. A twin copies the writes into a fresh copy made in the comparison's own function (each into
its own copy, examples/qat/qat_corners_in_place), not those a called function makes, so here the
comparison would see the background channel uncleared: float results would change. qlint must
not rewrite it that way.

Expected findings:
  line 41 eq-nonzero-const  `feats[:, :, :, -1] == 1.0` after the stub
  line 42 bool-arith        `x * valid[..., None]`: a bool mask in the quantized path
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


FX_TRACEABLE = False  # `feats[:, 0] = 0.0`: torch.fx cannot trace an item assignment


def clear_background(feats: torch.Tensor):
    """The head's utility: the background channel is cleared where the features live."""
    feats[:, 0] = 0.0


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        feats = x * 1.0
        clear_background(feats)
        valid = feats[:, :, :, -1] == 1.0
        return self.dequant(x * valid[..., None])


def example_input():
    # Channel 0's flags are all 1 (they survive only if the channel is not cleared first),
    # channel 1 has a 0 and a 1.
    x = torch.rand(1, 2, 4, 4, generator=torch.Generator().manual_seed(0)) * 4.0
    x[0, 0, :, -1] = 1.0
    x[0, 1, :, -1] = torch.tensor([1.0, 0.0, 1.0, 0.0])
    return x
