"""Candidates scored by a small MLP, dequantized, then ranked with `topk`, as the PyTorch
tutorial's wrapper does and as a trajectory model picks its target candidates. Traced after QAT
with int8 FakeQuantize modules.

Candidates whose scores lie closer than the output's rounding change places once quantized. The
ranking already reads dequantized values: no float value upstream is free of the layers'
rounding, so `sim-divergence` must not advise taking the decision "on the float values, before
the quant point" (public round 22's TNT was told so) but say that the layers' rounding decides
these near-ties.

Expected findings: none
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import INT8_FAKE_QUANT, trace_qat


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.score = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
        self.dequant = DeQuantStub()

    def forward(self, candidates):
        scores = self.dequant(self.score(self.quant(candidates))).squeeze(-1)
        _, best = scores.topk(5, dim=-1)
        return best


def example_input():
    generator = torch.Generator().manual_seed(1)
    return torch.rand(1, 40, 2, generator=generator) * 60 - 30


def build():
    return trace_qat(Model(), example_input(), INT8_FAKE_QUANT)
