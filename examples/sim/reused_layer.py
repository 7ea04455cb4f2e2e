"""One module called twice: a weight-shared refinement step, `self.step`, applied once to the
stub's output and once more to its own result (two lines), with the Linear and ReLU inside it
each called twice from one line.

`qlint sim --layers` gives `self.step` two rows, one per line that calls it, and
`self.step.fc` and `self.step.act` one row each that says "2 calls": a row is one place in the
code, its statistics are over every call from there.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Step(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.fc(x)) + x


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.step = Step()
        self.head = nn.Linear(8, 3)
        self.dequant = DeQuantStub()

    def forward(self, x):
        h = self.step(self.quant(x))
        h = self.step(h)  # the same module again
        return self.dequant(self.head(h))


def example_input():
    generator = torch.Generator().manual_seed(4)
    return torch.randn(4, 8, generator=generator) * 3.0
