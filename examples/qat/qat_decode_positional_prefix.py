"""Greedy decoding whose target embedding adds a fixed positional table sliced to the prefix
decoded so far, `x + self.positional[:, : ys.size(1)]`, before the embedding's QuantStub (a
Transformer's target embedding run at every step of its decode loop); the token lookup is a
module of its own around nn.Embedding, as a Transformer's `Embeddings` is. Traced after default QAT,
the loop is unrolled: the stub is applied at every step, to a prefix one row longer each time.

Each step quantizes the same kind of value, rows of the same two tables, as the deployed step
model does with its one quant point: no reused-stub (public round 22: the growing slice and the
wrapped lookup hid that from qlint, which gave every step a fake quant of its own, calibrated on
one batch).

Expected findings: none
"""
import math

import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat

VOCABULARY, WIDTH, STEPS = 12, 8, 4


class TokenLookup(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.Embedding(VOCABULARY, WIDTH)

    def forward(self, ys):
        return self.table(ys) * math.sqrt(WIDTH)


class TargetEmbedding(nn.Module):
    def __init__(self):
        super().__init__()
        self.lookup = TokenLookup()
        self.register_buffer("positional", torch.randn(1, 16, WIDTH))
        self.quant = QuantStub()

    def forward(self, ys):
        x = self.lookup(ys)
        x = x + self.positional[:, : ys.size(1)]
        return self.quant(x)


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.embed = TargetEmbedding()
        self.project = nn.Linear(WIDTH, VOCABULARY)
        self.dequant = DeQuantStub()

    def forward(self, start):
        ys = start
        for _ in range(STEPS):
            h = self.embed(ys)
            scores = self.dequant(self.project(h[:, -1]))
            next_word = scores.argmax(dim=1, keepdim=True)
            ys = torch.cat([ys, next_word], dim=1)
        return ys


def example_input():
    return torch.tensor([[1], [3]])


def build():
    model = Decoder()
    model.embed.lookup.table.qconfig = None  # an embedding takes its own qconfig: left in float here
    return trace_default_qat(model, example_input())
