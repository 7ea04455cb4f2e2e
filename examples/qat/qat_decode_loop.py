"""Greedy decoding of a tiny token model, traced after default QAT with its loop: the step
model's one QuantStub quantizes the token and position embeddings at every step.

The trace unrolls the loop, so the stub is applied three times on one line, as one stub is
applied to each level of a feature pyramid. But here each step quantizes the same kind of value
(rows of the same two embedding tables), as the deployed step model does with its one quant
point: one scale for all steps is the design, and no reused-stub (public round 19: minGPT's
`generate` was reported, and `--fix` gave steps 2 and 3 fake quants of their own).

Expected findings: none
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat

VOCABULARY = 20
STEPS = 3


class Step(nn.Module):
    def __init__(self, width: int = 16, length: int = 16):
        super().__init__()
        self.tokens = nn.Embedding(VOCABULARY, width)
        self.positions = nn.Embedding(length, width)
        self.quant = QuantStub()
        self.head = nn.Linear(width, VOCABULARY)
        self.dequant = DeQuantStub()

    def forward(self, ids):
        where = torch.arange(ids.shape[1])
        embedded = self.quant(self.tokens(ids) + self.positions(where))
        return self.dequant(self.head(embedded))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.step = Step()
        # Embeddings stay float (PyTorch's QAT embeddings need a weight-only qconfig).
        self.step.tokens.qconfig = None
        self.step.positions.qconfig = None

    def forward(self, ids):
        for _ in range(STEPS):
            logits = self.step(ids)[:, -1, :]
            ids = torch.cat((ids, logits.argmax(-1, keepdim=True)), dim=1)
        return ids


def example_input():
    generator = torch.Generator().manual_seed(19)
    return (torch.randint(0, VOCABULARY, (8, 5), generator=generator),)


def build():
    return trace_default_qat(Model(), example_input())
