"""Greedy decoding whose step module builds the padding mask of the tokens so far, `ys != PAD`,
and averages its quantized token scores over the tokens it keeps. Traced after default QAT, the
loop is unrolled: the mask's comparison is one line in each of the step's traced methods
(`forward`, `forward1`, ...). The first step's mask, on the given tokens, cannot flip; once
quantized, an earlier step's argmax picks other tokens at near-ties, PAD among them, and the masks
of the later steps follow.

With `--input`, sim-divergence reports the argmax (the rounding of the scores decides it) and the
mask, told as following that argmax, not as rounding of its own (public round 23: a seq2seq
decoder's mask was advised to compare float values before the quant point, which it has none of,
and its argmax was told that the mask flipped first).

Expected findings: none
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat

VOCABULARY, WIDTH, STEPS, PAD = 4, 8, 5, 0


class Step(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.Embedding(VOCABULARY, WIDTH)
        self.quant = QuantStub()
        self.mix = nn.Linear(WIDTH, VOCABULARY)
        self.dequant = DeQuantStub()

    def forward(self, ys):
        keep = (ys != PAD).float().unsqueeze(-1)
        scores = self.dequant(self.mix(self.quant(self.table(ys))))
        return (scores * keep).sum(1) / keep.sum(1).clamp(min=1.0)


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(1)
        self.step = Step()

    def forward(self, ys):
        for _ in range(STEPS):
            ys = torch.cat([ys, self.step(ys).argmax(dim=1, keepdim=True)], dim=1)
        return ys


def example_input():
    generator = torch.Generator().manual_seed(23)
    return (torch.randint(0, VOCABULARY, (32, 2), generator=generator),)


def build():
    model = Decoder()
    model.step.table.qconfig = None  # an embedding takes its own qconfig: left in float here
    return trace_default_qat(model, example_input())
