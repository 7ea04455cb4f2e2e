"""Eager post-training quantization of a model-zoo style network, converted and traced: no hazard.

Flow: QuantStub/DeQuantStub, `get_default_qconfig("qnnpack")`, `prepare`, calibration on four
batches, `convert`, `torch.jit.trace`. Nothing is fused, so the converted model holds the int8
kernels that mobile and audio models use besides conv2d and linear:

- a MobileNet-style block: conv, `BatchNorm2d` (`quantized::batch_norm2d`), `Hardswish`
  (`quantized::hardswish`), `LeakyReLU`, `ReLU6` (`quantized::relu6`), `ELU`, FloatFunctional's
  `add_scalar`, `mul_scalar` and `add_relu`;
- a decoder: `ConvTranspose2d`, `GroupNorm`, `InstanceNorm2d`;
- a sequence head: `Conv1d`, `ConvTranspose1d`, `LayerNorm`, FloatFunctional's `cat`.

Traced, not scripted: PyTorch 1.13's scripted quantized BatchNorm2d fails at run time (its
output scale is a one-element tensor where the kernel wants a float). The transposed convs have
no output padding, so that the archive also loads with `--engine onednn`: loading repacks
their weights for the engine, and onednn refuses output padding.

qlint must stay silent. `qlint sim` runs the int8 kernels against its float reference, every
kernel replaced by its float op on the dequantized weights; tests/sim/reference.py
float-reference computes the same in PyTorch (this file's float `Model` with the archive's
dequantized weights), and tests/e2e/sim_test.cpp requires both to be bit-identical.
"""
import torch
from torch import nn
from torch.ao.nn.quantized import FloatFunctional
from torch.ao.quantization import DeQuantStub, QuantStub
from flows import batches, calibrate, select_engine


class Block(nn.Module):
    """Conv, BatchNorm and a chain of activations, with a residual add_relu."""

    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels)
        self.hardswish = nn.Hardswish()
        self.leaky = nn.LeakyReLU(0.1)
        self.relu6 = nn.ReLU6()
        self.elu = nn.ELU(alpha=0.5)
        self.shift = FloatFunctional()
        self.gain = FloatFunctional()
        self.skip = FloatFunctional()

    def forward(self, x):
        y = self.hardswish(self.bn(self.conv(x)))
        y = self.elu(self.relu6(self.leaky(y)))
        y = self.gain.mul_scalar(self.shift.add_scalar(y, 0.25), 0.75)
        return self.skip.add_relu(y, x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.stem = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.block = Block(8)
        self.up = nn.ConvTranspose2d(8, 4, 4, stride=2, padding=1)
        self.group_norm = nn.GroupNorm(2, 4)
        self.instance_norm = nn.InstanceNorm2d(4, affine=True)
        self.seq = nn.Conv1d(4, 6, 3, stride=2, padding=1)
        self.seq_up = nn.ConvTranspose1d(6, 4, 3, stride=2)
        self.merge = FloatFunctional()
        self.norm = nn.LayerNorm(129)
        self.dequant = DeQuantStub()

    def forward(self, image):
        x = self.block(self.stem(self.quant(image)))
        x = self.instance_norm(self.group_norm(self.up(x)))  # 4 x 16 x 16
        s = self.seq(x.flatten(2)[:, :, :128])  # 6 x 64
        s = self.norm(self.merge.cat([self.seq_up(s), x.flatten(2)[:, :, :129]], 1))  # 8 x 129
        return self.dequant(x), self.dequant(s)


def image(generator):
    return torch.rand(1, 3, 16, 16, generator=generator) * 4.0 - 2.0


def example_input():
    return image(torch.Generator().manual_seed(0))


def converted():
    """The eager model, calibrated and converted to int8 (not yet exported)."""
    engine = select_engine()
    model = Model().eval()
    model.qconfig = torch.ao.quantization.get_default_qconfig(engine)
    torch.ao.quantization.prepare(model, inplace=True)
    calibrate(model, batches(image))
    return torch.ao.quantization.convert(model, inplace=True)


def build():
    return torch.jit.trace(converted(), example_input())
