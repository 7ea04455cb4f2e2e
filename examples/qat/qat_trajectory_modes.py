"""A trajectory head that ranks its modes: each agent gets 3 candidate trajectories of 6 steps and
a score per mode, and the trajectories are returned sorted by score (`scores.sort(1,
descending=True)`, then indexing by the order, as multi-modal motion predictors return them),
traced after QAT with PyTorch's default qconfig.

Two modes score almost alike for every agent; once quantized, their scores change places for
some agents, so the output holds the same trajectories with two modes in another order, along
dim 1 of agents x modes x steps x 2. Position by position that is a large error (PyTorch: 6.6 dB, 4 of 16 agents reordered);
with the modes paired with float's, it keeps 39.0 dB (PyTorch, each float mode paired with its nearest), and `check --input` reports nothing.

Expected findings: none.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat

MODES, STEPS = 3, 6


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.trajectories = nn.Linear(8, MODES * STEPS * 2)
        self.scores = nn.Linear(8, MODES)
        self.dequant_scores = DeQuantStub()
        self.dequant_trajectories = DeQuantStub()
        with torch.no_grad():  # modes 0 and 1 score almost alike
            self.scores.weight[1] = self.scores.weight[0] + 0.002 * torch.randn(8)
            self.scores.bias[1] = self.scores.bias[0]

    def forward(self, features):
        f = self.quant(features)
        trajectories = self.trajectories(f).view(-1, MODES, STEPS, 2)
        scores, order = self.scores(f).sort(1, descending=True)
        agents = torch.arange(order.size(0)).view(-1, 1).expand(-1, MODES)
        ranked = trajectories[agents, order]
        return self.dequant_scores(scores), self.dequant_trajectories(ranked)


def example_input():
    """16 agents' features."""
    return torch.randn(16, 8, generator=torch.Generator().manual_seed(1))


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
