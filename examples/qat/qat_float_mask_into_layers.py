"""A speech decoder's non-padding mask, `tokens.ne(PAD).float().unsqueeze(-1)`, made once and
passed into every layer, which multiplies it into the quantized frames after each sublayer
(`out *= non_pad_mask`). Traced after default QAT.

The mask never passes a quant point: each product is an unquantized operand. It is 0/1 by
construction (a comparison cast to float), so the fix's new fake quant starts exact at scale 1,
with or without inputs to calibrate on (public round 23: through the layer's parameter qlint did
not see the cast, and asked for --input to calibrate a mask).

Expected findings:
  line 30 unquantized-operand  the mask after the first sublayer (in both layers: one finding)
  line 32 unquantized-operand  after the feed-forward sublayer
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat

PAD, WIDTH = 0, 8


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.mix = nn.Linear(WIDTH, WIDTH)
        self.feed = nn.Sequential(nn.Linear(WIDTH, WIDTH), nn.ReLU())

    def forward(self, x, non_pad_mask):
        out = self.mix(x)
        out *= non_pad_mask
        out = self.feed(out)
        out *= non_pad_mask
        return out


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.embed = nn.Embedding(12, WIDTH)
        self.quant = QuantStub()
        self.layers = nn.ModuleList([Layer(), Layer()])
        self.dequant = DeQuantStub()

    def forward(self, tokens):
        non_pad_mask = tokens.ne(PAD).float().unsqueeze(-1)
        x = self.quant(self.embed(tokens))
        for layer in self.layers:
            x = layer(x, non_pad_mask)
        return self.dequant(x)


def example_input():
    return torch.tensor([[3, 5, 7, PAD], [4, 2, PAD, PAD]])


def build():
    model = Decoder()
    model.embed.qconfig = None  # an embedding takes its own qconfig: left in float here
    return trace_default_qat(model, example_input())
