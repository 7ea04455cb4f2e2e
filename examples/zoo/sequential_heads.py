"""nn.Sequential and nn.ModuleDict containers: a QuantStub at the top, S1 deep in a child.

Multi-task model in the model-zoo style: the stub is the first module of the top-level
`nn.Sequential` encoder, a `ValidGate` (the S1 comparison and a bool `*`) sits inside a nested
`nn.Sequential`, and an `nn.ModuleDict` of task heads is iterated in forward, each head output
going through one shared DeQuantStub (reusing a DeQuantStub is harmless: it has no scale).

Expected findings:
  line 48 shared-stub-mask  the encoder's QuantStub (`self.encoder.0`, called inside
                            `self.encoder(x)`) quantizes the flag with the data; the location
                            is the user's call `self.encoder`, not torch's Sequential.forward
  line 27 eq-nonzero-const  `x[:, -1:] == 1` in ValidGate
  line 28 bool-arith        `x[:, :-1] * valid` in ValidGate
Not expected: reused-stub for the DeQuantStub used once per head.
"""
from typing import Dict

import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class ValidGate(nn.Module):
    """Zero the features of invalid rows (last column is a 0/1 flag) and drop the flag."""

    def forward(self, x):
        valid = x[:, -1:] == 1
        return x[:, :-1] * valid


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.encoder = nn.Sequential(
            QuantStub(),
            nn.Sequential(ValidGate(), nn.Linear(7, 16), nn.ReLU()),
            nn.Linear(16, 16),
            nn.ReLU(),
        )
        self.heads = nn.ModuleDict({
            "box": nn.Linear(16, 4),
            "score": nn.Sequential(nn.Linear(16, 1), nn.Sigmoid()),
        })
        self.dequant = DeQuantStub()

    def forward(self, x) -> Dict[str, torch.Tensor]:
        feats = self.encoder(x)
        outputs: Dict[str, torch.Tensor] = {}
        for name, head in self.heads.items():
            outputs[name] = self.dequant(head(feats))
        return outputs


def example_input():
    generator = torch.Generator().manual_seed(0)
    features = torch.randn(5, 7, generator=generator) * 2.0
    flag = torch.tensor([[1.0], [0.0], [1.0], [1.0], [0.0]])
    return torch.cat([features, flag], dim=1)
