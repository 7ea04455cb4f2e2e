"""Eager-mode QAT with plain FakeQuantize, traced: the S2 hazard (a bool mask in `*`).

Flow: a QConfig of `FakeQuantize.with_args(observer=MovingAverageMinMaxObserver, quant_min=0,
quant_max=255)` for activations and `default_weight_fake_quant` for weights,
`fuse_modules` (conv + relu), `prepare_qat`, three SGD steps, observers disabled,
`torch.jit.trace` in eval mode. Activation fake quants are traced as
`aten::fake_quantize_per_tensor_affine` with the scale and zero point as tensor inputs (the
module's buffers); the conv's weight fake quant is a weight, not an activation quant point.

The input is a bird's-eye-view grid whose last channel is an occupancy flag (0 or 1).
PyTorch 1.13 computes for the stub's fake quant: scale 0.0463267, zero point 143; 1.0 fake
quantizes to 1.0191878 and 0.0 to 0.0, so `!= 0` is exact here and only the bool `*` is wrong.

qlint must find (traced: the statement range of each line):
  line 35 shared-stub-mask  `self.quant` quantizes the occupancy flag with the grid features
  line 38 bool-arith        `feats * occupied`: a bool tensor in `*` with a quantized tensor
"""
import torch
from torch import nn
from torch.ao.quantization import (DeQuantStub, FakeQuantize, MovingAverageMinMaxObserver, QConfig,
                                   QuantStub, default_weight_fake_quant)
from flows import batches, freeze_qat, train_qat


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.conv = nn.Conv2d(4, 8, 3, padding=1)
        self.relu = nn.ReLU()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.dequant = DeQuantStub()

    def forward(self, grid):
        x = self.quant(grid)
        occupied = x[:, -1:] != 0
        feats = self.relu(self.conv(x))
        feats = feats * occupied
        return self.dequant(self.pool(feats).flatten(1))


QAT_QCONFIG = QConfig(
    activation=FakeQuantize.with_args(observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255),
    weight=default_weight_fake_quant)


def bev_grid(generator):
    """1 x 4 x 8 x 8: three feature channels and a 0/1 occupancy channel."""
    features = torch.randn(1, 3, 8, 8, generator=generator) * 2.0
    occupied = (torch.rand(1, 1, 8, 8, generator=generator) > 0.5).to(torch.float)
    return torch.cat([features, occupied], dim=1)


def example_input():
    return bev_grid(torch.Generator().manual_seed(0))


def build():
    torch.manual_seed(0)
    model = Model()
    model.qconfig = QAT_QCONFIG
    model.train()
    torch.ao.quantization.fuse_modules_qat(model, [["conv", "relu"]], inplace=True)
    torch.ao.quantization.prepare_qat(model, inplace=True)
    train_qat(model, batches(bev_grid))
    freeze_qat(model)
    return torch.jit.trace(model, example_input())
