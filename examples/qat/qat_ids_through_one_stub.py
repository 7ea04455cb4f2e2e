"""A translation model's source and target token ids, given as float tensors by a data loader
and passed through the one QuantStub of the model before each is cast to `long` for its
embedding (clamped to the vocabulary, as a guard). Traced after default QAT.

Both casts read rounded ids (truncating-cast), and the stub quantizes two tensors (reused-stub).
`--fix` casts each float input instead; then nothing reads the stub's calls, and they go. The
reused-stub finding is resolved by those two rewrites: no fake quant of its own for the target
ids, which would quantize nothing (public round 25: a dead clone the user had to calibrate,
counted "Resolved").

Expected findings:
  line 30 truncating-cast  the source ids
  line 31 reused-stub      the target ids through the source's stub
  line 31 truncating-cast  the target ids
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat


class Translator(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.embed = nn.Embedding(40, 8)
        self.dequant = DeQuantStub()

    def forward(self, src, trg):
        src_tokens = self.quant(src).long().clamp(0, 39)
        trg_tokens = self.quant(trg).long().clamp(0, 39)
        return self.dequant(self.embed(src_tokens) + self.embed(trg_tokens))


def example_input():
    return (torch.tensor([[3.0, 17.0, 29.0, 1.0]]), torch.tensor([[2.0, 38.0, 11.0, 5.0]]))


def build():
    model = Translator()
    model.embed.qconfig = None  # an embedding takes its own qconfig: left in float here
    torch.manual_seed(0)
    return trace_default_qat(model, example_input())
