"""truncating-cast: class ids carried in a quantized channel, cast to integers.

A segmentation-style head keeps a per-pixel class id (0..3) in the last input channel. After
the stub, int16 quantization with the features' range (up to 7.3) moves 2.0 to 1.99994, and
`.long()` truncates it to 1: those pixels get the wrong class. Rounding first, or taking the ids
from the float input, keeps them.

Expected finding:
  line 25 truncating-cast  `x[:, -1].long()` (not line 26: rounded first)
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        feats = x[:, :-1]
        ids = x[:, -1].long()
        ids_ok = torch.round(x[:, -1]).long()
        return self.dequant(feats), ids, ids_ok


def example_input():
    g = torch.Generator().manual_seed(0)
    feats = torch.rand(1, 3, 4, 4, generator=g) * 7.3
    ids = torch.randint(0, 4, (1, 1, 4, 4), generator=g).float()
    return torch.cat([feats, ids], 1)
