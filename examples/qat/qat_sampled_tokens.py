"""Sampling decode: each step's token is drawn with `torch.multinomial` from the softmax of its
quantized scores and appended to the token ids (a GPT's `generate` with temperature sampling),
the scores not dequantized before the sampling. Traced after default QAT, the loop is unrolled.

`multinomial` returns int64 indices, as `argmax` does: the appended ids are whole numbers, no
quantized data, and `torch.cat` of them with the given ids needs no quant point (public round 24:
the sampled ids were taken for quantized data, `unquantized-operand` reported the given ids, and
`--fix` put a QuantStub on int64 token ids).

Expected findings: none
"""
import torch
from torch import nn
from torch.ao.quantization import QuantStub
from qat import trace_default_qat

VOCABULARY, WIDTH, STEPS = 10, 8, 3


class Sampler(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.table = nn.Embedding(VOCABULARY, WIDTH)
        self.quant = QuantStub()
        self.head = nn.Linear(WIDTH, VOCABULARY)

    def forward(self, ids):
        for _ in range(STEPS):
            scores = self.head(self.quant(self.table(ids[:, -1])))
            chosen = torch.multinomial(torch.softmax(scores / 0.8, dim=-1), num_samples=1)
            ids = torch.cat((ids, chosen), dim=1)
        return ids


def example_input():
    return (torch.tensor([[1, 4], [2, 7]]),)


def build():
    model = Sampler()
    model.table.qconfig = None  # an embedding takes its own qconfig: left in float here
    return trace_default_qat(model, example_input())
