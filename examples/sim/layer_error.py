"""A sensor model whose error explodes at one identifiable layer: four barometric readings
around 1000 hPa go through one stub, so its int16 scale is set by the offset (1000 / 32767.5 =
0.031) and the quant point itself keeps about 100 dB. `self.center` then subtracts the
readings' mean: what is left is their differences, within about 0.3 hPa, and the rounding of
the stub stays as it was (the sensors' calibration before it keeps the offset), so the SQNR falls to about 20 dB there and stays low in every layer
after it.

`qlint sim --layers` shows the drop: `self.quant` and nothing before `self.center` are far
above 40 dB, `self.center` is the first row under it.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Calibrate(nn.Module):
    """Each sensor's gain and offset."""

    def __init__(self):
        super().__init__()
        self.gain = nn.Parameter(torch.tensor([1.01, 0.99, 1.0, 1.02]))
        self.offset = nn.Parameter(torch.tensor([-10.0, 10.0, 0.0, -20.0]))

    def forward(self, x):
        return x * self.gain + self.offset


class Center(nn.Module):
    def forward(self, x):
        return x - x.mean(dim=-1, keepdim=True)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.calibrate = Calibrate()
        self.center = Center()  # where the error explodes
        self.embed = nn.Linear(4, 16)
        self.act = nn.ReLU()
        self.head = nn.Linear(16, 2)
        self.dequant = DeQuantStub()

    def forward(self, readings):
        x = self.calibrate(self.quant(readings))
        x = self.center(x)
        x = self.act(self.embed(x * 10.0))
        return self.dequant(self.head(x))


def example_input():
    generator = torch.Generator().manual_seed(3)
    # Each sensor's own offset cancels its calibration's, so the calibrated readings agree.
    return torch.tensor([1010.0, 990.0, 1000.0, 1020.0]) / torch.tensor([1.01, 0.99, 1.0, 1.02]) + \
        0.1 * torch.randn(16, 4, generator=generator)
