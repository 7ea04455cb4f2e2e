"""An in-place ReLU (`nn.ReLU(inplace=True)`) between the stub and a 0/1 flag comparison.

Backbone style: `self.act(self.conv(x))` with an in-place activation, as torchvision's models
build them. The ReLU writes its input in place inside its module; the float twin the fix
builds copies that call too, so the write is in the twin as well and the fix stays exact
(unlike examples/zoo/channel_zeroed_in_place.py, where the write is not on the way).

Expected findings:
  line 28 shared-stub-mask  the flag channel, concatenated to the features, shares their stub
  line 31 eq-nonzero-const  `h[:, -1] == 1.0` after the stub
  line 32 bool-arith        `h * valid[:, None]`
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.conv = nn.Conv2d(3, 4, 1)
        self.act = nn.ReLU(inplace=True)
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        h = self.act(self.conv(x))
        h = torch.cat([h, x[:, -1:]], dim=1)
        valid = h[:, -1] == 1.0
        return self.dequant(h * valid[:, None])


def example_input():
    x = torch.rand(1, 3, 4, 4, generator=torch.Generator().manual_seed(0))
    x[0, -1] = (torch.arange(16).reshape(4, 4) % 2).to(torch.float)
    return x
