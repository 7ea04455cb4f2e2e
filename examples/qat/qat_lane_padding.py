"""A map encoder's padding masks, taken from the quantized map points: small coordinates round
to 0 and become padding. Traced after QAT with PyTorch's default qconfig.

Lanes and crosswalks arrive as (batch, polylines, points, 2) coordinates around the ego vehicle,
zero-padded where a polyline has fewer points, each through a stub of its own; one helper
treats a point whose x is exactly 0 as padding, for both. After a stub, whose int8 step the
farthest points set (about 0.4 m), every real point within 0.2 m of x = 0 quantizes to 0 too:
the mask drops real map points next to the vehicle, the ones that matter most. Comparing with
0 is exact under quantization for a 0 itself, so no static rule fires; `qlint check --input`
reports the flips (sim-divergence at line 21), and `--fix --input` compares each stub's float
input instead (the float shadow), in both copies of the helper the trace inlined, where the
masks are the float model's.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat


def point_padding(points):
    return torch.eq(points, 0)[..., 0]


class LaneEncoder(nn.Module):
    def __init__(self, channels=8):
        super().__init__()
        self.point = nn.Linear(2, channels)

    def forward(self, lanes):
        features = torch.relu(self.point(lanes))
        return features


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.quant_crosswalks = QuantStub()
        self.encoder = LaneEncoder()
        self.dequant = DeQuantStub()

    def forward(self, lanes, crosswalks):
        x = self.quant(lanes)
        c = self.quant_crosswalks(crosswalks)
        points = torch.cat([x, c], dim=1)
        padding = torch.cat([point_padding(x), point_padding(c)], dim=1)
        features = self.encoder(points).masked_fill(padding[..., None], 0.0)
        return self.dequant(features.max(dim=2)[0])


def example_input():
    generator = torch.Generator().manual_seed(5)
    lanes = torch.randn(1, 4, 6, 2, generator=generator) * 20
    lanes[0, 0, :, 0] = torch.tensor([0.05, -0.12, 0.15, 0.08, -0.03, 0.11])  # a lane crossing in front
    lanes[0, 1, 4:] = 0.0  # padding
    lanes[0, 3, 3:] = 0.0
    crosswalks = torch.randn(1, 2, 6, 2, generator=generator) * 15
    crosswalks[0, 1, :, 0] = torch.tensor([-0.09, 0.04, 0.13, -0.17, 0.02, 0.06])  # just ahead
    crosswalks[0, 0, 5:] = 0.0
    return lanes, crosswalks


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
