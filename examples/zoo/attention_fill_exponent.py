"""Self-attention that fills padded keys with `-1e9`, as many transformer implementations write
it, with padding flags (1 for a padded position) that pass a QuantStub of their own.

PyTorch 1.13 records the source range of a float literal with an exponent by the length of its
printed form (`-1e9` as `-1000000000.`), so the ranges of the literal and of every expression
around it end past the end of the recorded text. qlint read that as broken debug info and
dropped all of it when such a literal ends a function (here `masked_scores`): every finding of
the archive lost its Python line. It now ends such ranges at the text's end and keeps the lines.

Expected finding:
  line 36 eq-nonzero-const  `pad[:, None, :] == 1` after the flags' stub
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.quant_pad = QuantStub()
        self.dequant = DeQuantStub()
        self.query = nn.Linear(8, 8)
        self.key = nn.Linear(8, 8)
        self.value = nn.Linear(8, 8)

    def forward(self, tokens, pad):
        tokens = self.quant(tokens)
        scores = self.masked_scores(tokens, self.quant_pad(pad))
        return self.dequant(torch.bmm(scores.softmax(-1), self.value(tokens)))

    def masked_scores(self, tokens, pad):
        scores = torch.bmm(self.query(tokens), self.key(tokens).transpose(1, 2)) / 8**0.5
        return scores.masked_fill(pad[:, None, :] == 1, -1e9)


def example_input():
    generator = torch.Generator().manual_seed(4)
    tokens = torch.randn(2, 5, 8, generator=generator)
    pad = torch.zeros(2, 5)
    pad[0, 3:] = 1.0
    pad[1, 4:] = 1.0
    return tokens, pad
