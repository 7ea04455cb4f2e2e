"""A sequence encoder whose layers take the padding flags as an optional argument, the way
attention layers are usually written: `forward(self, tokens, padding: Optional[Tensor] = None)`.

The flags (1 for a padded position) pass a QuantStub of their own and reach every layer, which
builds its mask with `padding == 1`. After the stub, 1.0 is a value of the quantization grid only
by chance, so the comparison can be False everywhere: eq-nonzero-const in the layer. The fix
compares the flags before the stub, which the layer does not see: the float flags must be passed
into it as one more argument, after the defaulted one.

Expected finding:
  line 31 eq-nonzero-const  `padding == 1` in EncoderLayer.forward
"""
from typing import Optional

import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class EncoderLayer(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.query = nn.Linear(channels, channels)
        self.key = nn.Linear(channels, channels)
        self.value = nn.Linear(channels, channels)

    def forward(self, tokens: torch.Tensor, padding: Optional[torch.Tensor] = None) -> torch.Tensor:
        scores = torch.bmm(self.query(tokens), self.key(tokens).transpose(1, 2))
        if padding is not None:
            # every query ignores the padded keys
            scores = scores.masked_fill((padding == 1)[:, None, :], -1e4)
        return tokens + torch.bmm(torch.softmax(scores, dim=-1), self.value(tokens))


class Model(nn.Module):
    def __init__(self, channels: int = 8, layers: int = 2):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.padding_quant = QuantStub()
        self.layers = nn.ModuleList([EncoderLayer(channels) for _ in range(layers)])
        self.dequant = DeQuantStub()

    def forward(self, tokens, padding):
        x = self.quant(tokens)
        pad = self.padding_quant(padding)
        for layer in self.layers:
            x = layer(x, pad)
        return self.dequant(x)


def example_input():
    generator = torch.Generator().manual_seed(3)
    tokens = torch.randn(2, 6, 8, generator=generator)
    padding = torch.zeros(2, 6)
    padding[0, 4:] = 1.0
    padding[1, 5:] = 1.0
    return tokens, padding
