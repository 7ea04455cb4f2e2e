"""Monte Carlo dropout: a head that keeps dropout on at inference time, for an uncertainty
estimate (trajectory and detection heads sample it several times).

`F.dropout(..., training=True)` draws random numbers in eval mode too. LibTorch's random
generator is one for the whole process, so when `qlint sim -j 2` runs two input batches at the
same time, each batch would draw other numbers than it draws alone: the simulator sees that
the generator moved and runs the batches again, one after another, each from its own seed
(docs/simulation.md, "Batches at once"). Nothing in the graph names a sampling op (dropout's
schema has no generator), so only the run can tell.

qlint must stay silent: nothing is compared, and the dropout's draws are the same in the float
and the simulated run of a batch.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from torch.nn import functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.encoder = nn.Linear(8, 16)
        self.head = nn.Linear(16, 4)
        self.dequant = DeQuantStub()

    def forward(self, features):
        x = self.quant(features)
        hidden = torch.relu(self.encoder(x))
        hidden = F.dropout(hidden, 0.2, training=True)
        return self.dequant(self.head(hidden))


def example_input():
    return torch.linspace(-2.0, 2.0, 16).reshape(2, 8)
