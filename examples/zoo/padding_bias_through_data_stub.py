"""A BERT-style encoder block whose 0/1 attention mask (1 for a real token) passes the tokens'
QuantStub, then becomes the extended attention mask `(1.0 - mask) * torch.finfo(dtype).min` (the
literal: TorchScript has no torch.finfo), a bias added to the scores: 0 where the mask is 1.

The bias is 0 only where the mask is exactly 1 (a comparison in disguise, like `mask == 1`).
Through the tokens' stub the mask shares the tokens' scale, at which 1 rounds to another value:
every real key gets a bias far larger than its score, and attention becomes uniform.

Expected findings:
  line 28 eq-nonzero-const     the bias, 0 only where the quantized mask equals 1
  line 29 unquantized-operand  the bias added to the quantized scores: one scale for -3.4e38 and them
  line 43 shared-stub-mask     the mask, made a bias on line 28, shares the tokens' scale
  line 44 reused-stub          the tokens through the mask's stub
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Encoder(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.query = nn.Linear(channels, channels)
        self.key = nn.Linear(channels, channels)

    def forward(self, tokens, attention_mask):
        extended = attention_mask[:, None, :]
        bias = (1.0 - extended) * -3.4028234663852886e38
        scores = torch.bmm(self.query(tokens), self.key(tokens).transpose(1, 2)) + bias
        return torch.bmm(scores.softmax(-1), tokens)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.dequant = DeQuantStub()
        self.encoder = Encoder(8)

    def forward(self, tokens, attention_mask):
        # The mask first, as the report's wrapper did: its call is the stub's first.
        attention_mask = self.quant(attention_mask)
        tokens = self.quant(tokens)
        return self.dequant(self.encoder(tokens, attention_mask))


def example_input():
    generator = torch.Generator().manual_seed(15)
    tokens = torch.randn(2, 6, 8, generator=generator) * 3
    attention_mask = torch.ones(2, 6)
    attention_mask[1, 4:] = 0.0
    return tokens, attention_mask
