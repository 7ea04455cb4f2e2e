"""Eager-mode post-training static quantization, converted to int8 and scripted: no hazard.

Flow: QuantStub/DeQuantStub in the model, `fuse_modules` (conv + bn + relu),
`get_default_qconfig("qnnpack")`, `prepare`, calibration on four batches, `convert`,
`torch.jit.script`. After convert the stubs are `Quantize` (`aten::quantize_per_tensor` with
the calibrated scale and zero point as module attributes) and `DeQuantize`
(`aten::dequantize`); the convs are `quantized::conv2d_relu`/`quantized::conv2d`; the residual
add and the channel gate's product go through FloatFunctional, which convert turns into
QFunctional: `quantized::add` and `quantized::mul` with the output scale and zero point of
their own observer. Weights are prepacked for qnnpack (Debian's torch has no fbgemm).

qlint must stay silent: every operand of the add and the mul is quantized. Its simulation
runs the int8 kernels as they are (SPEC.md section 6) and must not call the model
"unquantized".
"""
import torch
from torch import nn
from torch.ao.nn.quantized import FloatFunctional
from torch.ao.quantization import DeQuantStub, QuantStub
from flows import batches, calibrate, select_engine


class ResidualBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.relu1 = nn.ReLU()
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)
        self.skip = FloatFunctional()

    def forward(self, x):
        out = self.relu1(self.bn1(self.conv1(x)))
        out = self.conv2(out)
        return self.skip.add(out, x)


class ChannelGate(nn.Module):
    """Squeeze-and-excitation style gate: out = x * sigmoid(fc(mean(x)))."""

    def __init__(self, channels):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Conv2d(channels, channels, 1)
        self.sigmoid = nn.Sigmoid()
        self.apply_gate = FloatFunctional()

    def forward(self, x):
        return self.apply_gate.mul(x, self.sigmoid(self.fc(self.pool(x))))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.block = ResidualBlock(8)
        self.gate = ChannelGate(8)
        self.dequant = DeQuantStub()

    def forward(self, image):
        x = self.quant(image)
        x = self.gate(self.block(self.stem(x)))
        return self.dequant(x)


def image(generator):
    return torch.rand(1, 3, 16, 16, generator=generator) * 2.0 - 1.0


def example_input():
    return image(torch.Generator().manual_seed(0))


def build():
    torch.manual_seed(0)
    engine = select_engine()
    model = Model().eval()
    torch.ao.quantization.fuse_modules(model.block, [["conv1", "bn1", "relu1"]], inplace=True)
    model.qconfig = torch.ao.quantization.get_default_qconfig(engine)
    torch.ao.quantization.prepare(model, inplace=True)
    calibrate(model, batches(image))
    torch.ao.quantization.convert(model, inplace=True)
    return torch.jit.script(model)
