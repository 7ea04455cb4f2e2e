"""Pillar centres from integer grid coordinates times a Python float, traced after QAT with
PyTorch's default qconfig.

Point-cloud encoders decorate each point with its offset from its pillar's centre, computed as
`coords[:, None, 1:2] * voxel_size + x_offset` straight from the integer (long) grid
coordinates. In PyTorch `long * 0.16` is float32: the trace records the Python float as a
0-dim double tensor constant, which the archive keeps without the mark that it was a Python
number, and only PyTorch's optimising executor makes the product float32 again. qlint's
simulation runs the graph op by op, so it restores the mark (it used to fail here with
"expected scalar type Double but found Float").

Expected finding: line 31, the centre, which never passed a stub, is subtracted from the
quantized points (unquantized-operand); `qlint check --input` simulates the model.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat

VOXEL_SIZE = 0.16
X_OFFSET = 0.08


class PillarEncoder(nn.Module):
    def __init__(self, channels=8):
        super().__init__()
        self.conv = nn.Conv1d(5, channels, 1)

    def forward(self, points, coords):
        centre = coords[:, None, 1:2] * VOXEL_SIZE + X_OFFSET
        decorated = torch.cat([points, points[:, :, :1] - centre], dim=-1)
        return self.conv(decorated.permute(0, 2, 1)).max(dim=2)[0]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.encoder = PillarEncoder()
        self.dequant = DeQuantStub()

    def forward(self, points, coords):
        return self.dequant(self.encoder(self.quant(points), coords))


def example_input():
    generator = torch.Generator().manual_seed(6)
    points = torch.randn(6, 5, 4, generator=generator) * 2
    coords = torch.randint(0, 400, (6, 3), generator=generator)
    return points, coords


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
