"""A keypoint decoder as pose estimators write it: the peak of each heatmap, moved a quarter of a
cell toward its higher neighbour, then the cell the refined point falls in.

Expected findings: none. `torch.sign` of the quantized difference is -1, 0 or 1 exactly, like a
comparison's result: the quarter offset it gives holds no rounding error, so the floor of the
refined column is no whole number that quantization could move below itself.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub

FX_TRACEABLE = False  # `heat.shape[-1]` as a Python int: torch.fx cannot pass a traced size on


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.dequant = DeQuantStub()
        self.head = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, image):
        heat = self.head(self.quant(image))
        width = heat.shape[-1]
        flat = heat.flatten(2)
        peaks, idx = flat.max(2)
        left = flat.gather(2, (idx - 1).clamp(min=0)[..., None])[..., 0]
        right = flat.gather(2, (idx + 1).clamp(max=flat.shape[-1] - 1)[..., None])[..., 0]
        cols = (idx % width).float() + torch.sign(right - left) * 0.25
        rows = torch.div(idx, width, rounding_mode="floor").float()
        cell = torch.floor(cols + 0.5).long().clamp(0, width - 1)
        return self.dequant(peaks), torch.stack([cols, rows], dim=2), cell


def example_input():
    return torch.randn(2, 3, 8, 8, generator=torch.Generator().manual_seed(6))
