"""A BERT-style encoder block whose 0/1 attention mask has a QuantStub of its own, then becomes
the extended attention mask `(1.0 - mask) * torch.finfo(torch.float32).min` (the literal).

The bias is 0 only where the mask is exactly 1: a comparison with 1 in disguise. Under the
symmetric int16 scheme 1 becomes 0.99997, and every real key gets a bias of -1e34, which swamps
its score: attention becomes uniform. `--fix` makes the bias from the mask's float input. Traced
after QAT with PyTorch's default qconfig (qat/qat_padding_bias_own_stub), the mask's fake quant
calibrates to scale 1/255, where 1 is exact: only the sum (below) is reported there.

The bias is also added to the quantized scores: one scale for the sum must span -3.4e38 and the
scores, which then all round to 0, whether or not the mask passed a stub (public round 29's
DenseTNT: a -10000 bias from a stubbed mask got no finding).

Expected findings:
  line 31 eq-nonzero-const     the bias, 0 only where the quantized mask equals 1
  line 32 unquantized-operand  the bias added to the quantized scores
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
        self.quant_mask = QuantStub()
        self.dequant = DeQuantStub()
        self.encoder = Encoder(8)

    def forward(self, tokens, attention_mask):
        attention_mask = self.quant_mask(attention_mask)
        return self.dequant(self.encoder(self.quant(tokens), attention_mask))


def example_input():
    generator = torch.Generator().manual_seed(15)
    tokens = torch.randn(2, 6, 8, generator=generator) * 3
    attention_mask = torch.ones(2, 6)
    attention_mask[1, 4:] = 0.0
    return tokens, attention_mask
