"""A DETR-style wrapper that passes the image, its 0/1 padding mask (as floats) and the image
sizes through one QuantStub, then casts the mask back with `.to(torch.bool)` to fill the padded
pixels: the cast is the zero test `m != 0`.

The sizes (a few hundred) set the stub's scale, at which the mask's 1s round to 0: every pixel
looks unpadded. The finding belongs to the mask's call, besides the stub's reuse.

Expected findings:
  line 28 reused-stub       the mask through the image's stub
  line 28 shared-stub-mask  the mask, cast back to bool on line 30, shares the sizes' scale
  line 29 reused-stub       the sizes through the same stub
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.dequant = DeQuantStub()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, image, padding, sizes):
        x = self.conv(self.quant(image))
        m = self.quant(padding.float())
        s = self.quant(sizes)
        padded = m.to(torch.bool)
        return self.dequant(x.masked_fill(padded[:, None], 0.0) / s[:, :1, None, None])


def example_input():
    generator = torch.Generator().manual_seed(5)
    image = torch.randn(2, 3, 8, 8, generator=generator)
    padding = torch.zeros(2, 8, 8, dtype=torch.bool)
    padding[:, :, 6:] = True
    return image, padding, torch.tensor([[320.0, 240.0], [300.0, 200.0]])
