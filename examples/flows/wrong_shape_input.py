"""A model whose example input has a shape its forward rejects: Linear(8, 4) given 1 x 7.

Flow: plain QuantStub model, `torch.jit.script`. Exporting succeeds (scripting does not run
the model); only running it fails. PyTorch 1.13 raises, at line 27
(`self.fc(x)`): "mat1 and mat2 shapes cannot be multiplied (1x7 and 8x4)".

qlint check (static) must stay silent: the code has no hazard.
qlint sim / check --input with the example input must not abort: exit 2 and one line with the
model's own error message and its Python line (examples/flows/wrong_shape_input.py:27),
SPEC.md section 6 ("Never abort").
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.fc = nn.Linear(8, 4)
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        y = torch.relu(self.fc(x))
        return self.dequant(y)


def example_input():
    generator = torch.Generator().manual_seed(0)
    return torch.randn(1, 7, generator=generator)
