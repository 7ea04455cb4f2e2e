"""One projection layer for two kinds of input, and one encoder for every agent in a loop.

A fusion model projects camera features and radar features with the same `nn.Linear` (written
once, called twice: a common shortcut), and encodes each agent's track with one encoder in a
loop. After prepare_qat every quantized module has one output fake quant, shared by all its
calls: the projection's two calls put two tensors of very different ranges under one scale,
while the loop's calls are one kind of value, and one scale for them is the design. The float
model with stubs (scripted) has no fake quant on ordinary modules, so nothing to report;
examples/qat/qat_shared_projection.py is the traced QAT model.

Expected findings, traced after QAT:
  line 40 reused-stub  `self.proj` is called on a second tensor (first on line 39)
Not expected: anything at line 42 (the loop's encoder calls).
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant_camera = QuantStub()
        self.quant_radar = QuantStub()
        self.quant_tracks = QuantStub()
        self.proj = nn.Linear(6, 6)
        self.track_encoder = nn.Linear(6, 6)
        self.agents = 3
        self.dequant = DeQuantStub()

    def forward(self, camera, radar, tracks):
        # camera: (batch, 6) features of order 1; radar: (batch, 6) of order 100;
        # tracks: (batch, agents, 6).
        c = self.quant_camera(camera)
        r = self.quant_radar(radar)
        t = self.quant_tracks(tracks)
        fused = torch.zeros_like(c)
        fused = fused + self.proj(c)
        fused = fused + self.proj(r)
        for i in range(self.agents):
            fused = fused + self.track_encoder(t[:, i])
        return self.dequant(fused)


def example_input():
    generator = torch.Generator().manual_seed(6)
    return (torch.randn(2, 6, generator=generator), torch.randn(2, 6, generator=generator) * 100,
            torch.randn(2, 3, 6, generator=generator))
