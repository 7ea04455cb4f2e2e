"""A keypoint decoder split into free functions as pose code writes it: `decode` picks each
heatmap's peak, then calls `to_image` to map the cell into the image with the box centre and
scale, which pass QuantStubs of their own.

Expected findings: two unquantized-operand in `to_image`, whose cell coordinates (taken from the
peak's index) never passed a QuantStub. `to_image` is called only from `decode`, itself a free
function, and a new stub needs a module: `--fix` inlines the call of `decode` in `forward`, then
the call of `to_image` in that copy, and quantizes the cells there.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub

FX_TRACEABLE = False  # `heat.shape[-1]` as a Python int: torch.fx cannot pass a traced size on


def to_image(cells, centre, scale):
    x = cells[..., 0] * scale[:, None, 0] + centre[:, None, 0]
    y = cells[..., 1] * scale[:, None, 1] + centre[:, None, 1]
    return torch.stack([x, y], dim=-1)


def decode(heat, centre, scale):
    width = heat.shape[-1]
    idx = heat.flatten(2).argmax(-1)
    cells = torch.stack([(idx % width).float(), torch.div(idx, width, rounding_mode="floor").float()], dim=-1)
    return to_image(cells, centre, scale)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.quant_centre = QuantStub()
        self.quant_scale = QuantStub()
        self.dequant = DeQuantStub()
        self.head = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, image, centre, scale):
        heat = self.head(self.quant(image))
        joints = decode(heat, self.quant_centre(centre), self.quant_scale(scale))
        return self.dequant(joints)


def example_input():
    generator = torch.Generator().manual_seed(15)
    image = torch.randn(2, 3, 8, 8, generator=generator)
    centre = torch.rand(2, 2, generator=generator) * 100
    scale = 1 + torch.rand(2, 2, generator=generator)
    return image, centre, scale
