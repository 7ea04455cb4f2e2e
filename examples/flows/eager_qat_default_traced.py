"""Eager-mode QAT with PyTorch's default QAT qconfig, traced: the S1 hazard.

Flow: `get_default_qat_qconfig("fbgemm")` (activations and weights through
FusedMovingAvgObsFakeQuantize, quint8 with reduce_range, i.e. 0..127, affine), `prepare_qat`,
three SGD steps in training mode, observers disabled, `torch.jit.trace` in eval mode. The
activation fake quants are traced as `aten::fused_moving_avg_obs_fake_quant`; their scale and
zero point are the module buffers `activation_post_process.scale`/`.zero_point`, not the
flag inputs. The Linear layers' weight fake quants are weights, not activation quant points.

The last input feature is a validity flag (0 or 1). PyTorch 1.13 computes, for the stub's
activation fake quant after the QAT steps: scale 0.0545516, zero point 62 (quant range
0..127), and 1.0 fake quantizes to 0.9819288 (18 steps above the zero point; 0.0 stays 0.0):
the mask is all False and the model zeroes every track (4 of the 6 example tracks are valid
in float).

qlint must find (traced: the statement range of each line):
  line 37 shared-stub-mask  `self.quant` quantizes the flag together with the features
  line 38 eq-nonzero-const  `x[..., -1] == 1` on the fake-quantized tensor is never true
  line 39 bool-arith        `x * mask[..., None]` multiplies by a bool tensor
"""
import warnings

import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from flows import batches, freeze_qat, train_qat


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.encoder = nn.Sequential(nn.Linear(9, 16), nn.ReLU(), nn.Linear(16, 4))
        self.dequant = DeQuantStub()

    def forward(self, tracks):
        x = self.quant(tracks)
        mask = x[..., -1] == 1
        x = x * mask[..., None]
        return self.dequant(self.encoder(x))


def tracks(generator):
    """1 x 6 tracks of 8 features and a 0/1 validity flag."""
    features = torch.randn(1, 6, 8, generator=generator) * 1.5
    valid = (torch.arange(6) % 3 != 2).to(torch.float).view(1, 6, 1)
    return torch.cat([features, valid], dim=-1)


def example_input():
    return tracks(torch.Generator().manual_seed(0))


def build():
    torch.manual_seed(0)
    model = Model()
    model.qconfig = torch.ao.quantization.get_default_qat_qconfig("fbgemm")
    model.train()
    with warnings.catch_warnings():
        # PyTorch's own default qconfig still passes reduce_range, which its observer deprecates.
        warnings.filterwarnings("ignore", message="Please use quant_min and quant_max")
        torch.ao.quantization.prepare_qat(model, inplace=True)
    train_qat(model, batches(tracks))
    freeze_qat(model)
    return torch.jit.trace(model, example_input())

