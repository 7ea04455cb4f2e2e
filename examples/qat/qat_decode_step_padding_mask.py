"""Greedy decoding that calls one decoder step module per generated token, passing it the tokens
so far and their padding mask, `(ys != PAD).float()`, computed in the loop; the step multiplies
the token embeddings by the mask before its QuantStub (a seq2seq decoder's shape). Traced after
default QAT, the loop is unrolled: the step's traced methods `forward`, `forward1`, ... each apply
the stub once, to embeddings of the same table masked by the same comparison.

Each step quantizes the same kind of value, as the deployed step model does with its one quant
point: no reused-stub (public round 23: the mask reached each step as an argument, which hid that
from qlint; it gave every step a clone of the stub, all calibrated to the original's scale, and
counted the finding resolved).

Expected findings: none
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat

VOCABULARY, WIDTH, STEPS, PAD = 12, 8, 4, 1


class Step(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.Embedding(VOCABULARY, WIDTH)
        self.quant = QuantStub()
        self.project = nn.Linear(WIDTH, VOCABULARY)
        self.dequant = DeQuantStub()

    def forward(self, ys, keep):
        h = self.quant(self.table(ys) * keep.unsqueeze(-1))
        return self.dequant(self.project(h)).mean(1)


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.step = Step()

    def forward(self, start):
        ys = start
        for _ in range(STEPS):
            keep = (ys != PAD).float()
            scores = self.step(ys, keep)
            ys = torch.cat([ys, scores.argmax(dim=1, keepdim=True)], dim=1)
        return ys


def example_input():
    return torch.tensor([[2, 5, PAD], [2, 7, 9]])


def build():
    model = Decoder()
    model.step.table.qconfig = None  # an embedding takes its own qconfig: left in float here
    return trace_default_qat(model, example_input())
