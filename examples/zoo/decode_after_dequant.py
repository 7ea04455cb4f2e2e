"""A heatmap head whose decoding runs after the DeQuantStub, as deployment exports usually split
it: the accelerator runs the network, the CPU decodes the peaks in float.

Expected findings: none. The cell columns and rows from the peaks' indices are added to offsets
that left the quantized domain at `self.dequant`. Traced after QAT (qat/qat_decode_after_dequant)
the trace records the DeQuantStub's call without its tensor (`dequant.forward()`: the stub
returns its input itself); qlint takes the tensor computed just before the call, and read after
it, as the one dequantized, so the decoding is float there too.
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
        self.head = nn.Conv2d(3, 3, 3, padding=1)

    def forward(self, image):
        maps = self.dequant(self.head(self.quant(image)))
        heat = torch.sigmoid(maps[:, 0]).flatten(1)
        width = maps.shape[-1]
        scores, idx = heat.topk(6)
        offsets = maps[:, 1:].flatten(2).gather(2, idx[:, None, :].expand(-1, 2, -1))
        cols = (idx % width).float() + offsets[:, 0]
        rows = torch.div(idx, width, rounding_mode="floor").float() + offsets[:, 1]
        return torch.stack([cols, rows, scores], dim=2)


def example_input():
    return torch.randn(2, 3, 10, 10, generator=torch.Generator().manual_seed(4))
