"""An attention block whose float 0/1 padding mask (1 for a real token) passes the tokens'
QuantStub, as a quick QAT wrapper of a transformer does it: `mask = self.quant(mask)`. The
attention compares the mask with 0 to fill the padded keys.

The whole second tensor of the stub is the mask, and the first is wide data (embeddings of a
few hundred): both share the scale the data sets, at which 1 can round to 0, so every key looks
padded. The finding belongs to the stub's second call, besides its reuse.

Expected findings:
  line 40 reused-stub       the mask through the tokens' stub
  line 40 shared-stub-mask  the mask, compared with 0 on line 26, shares the tokens' scale
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Attention(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.query = nn.Linear(channels, channels)
        self.key = nn.Linear(channels, channels)

    def forward(self, tokens, mask):
        scores = torch.bmm(self.query(tokens), self.key(tokens).transpose(1, 2))
        scores = scores.masked_fill(mask[:, None, :] == 0, -1e4)
        return torch.bmm(scores.softmax(-1), tokens)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.dequant = DeQuantStub()
        self.attention = Attention(8)

    def forward(self, tokens, mask):
        tokens = self.quant(tokens)
        mask = self.quant(mask)
        return self.dequant(self.attention(tokens, mask))


def example_input():
    generator = torch.Generator().manual_seed(7)
    tokens = torch.randn(2, 6, 8, generator=generator) * 300
    mask = torch.ones(2, 6)
    mask[0, 4:] = 0.0
    return tokens, mask
