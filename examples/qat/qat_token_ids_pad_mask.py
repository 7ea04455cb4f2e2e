"""Token ids through the features' QuantStub, a padding mask `ids != PAD` (pad id 1) built from
them in forward and passed into an attention layer, which applies it with
`masked_fill(mask == 0, ...)` (the form of public transformer code), traced after QAT with
PyTorch's default qconfig.

Statically the ids compared with 1 look like a 0/1 mask channel sharing the features' scale
(shared-stub-mask). With `--input` the simulation sees token ids 1..39 in that comparison: no
mask channel, so shared-stub-mask stays silent and eq-nonzero-const drops its "compare with 0"
advice. The flipped `!=` makes the layer's `mask == 0` flip too: reported as its consequence,
across the call into the layer.

Expected findings:
  line 45 reused-stub         `self.quant` applied to the ids after the features
  line 45 shared-stub-mask    (static only) the ids compared with 1 on line 46
  line 46 eq-nonzero-const    `ids != 1` after the stub
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat

PAD = 1


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x, mask):
        scores = torch.matmul(self.proj(x), x.transpose(1, 2))
        scores = scores.masked_fill(mask == 0, -1e4)
        return torch.matmul(scores.softmax(-1), x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.attn = Attention()
        self.dequant = DeQuantStub()

    def forward(self, features, ids):
        x = self.quant(features)
        ids = self.quant(ids)
        mask = (ids != PAD).unsqueeze(1)
        return self.dequant(self.attn(x, mask))


def example_input():
    """Two sequences of 6 tokens, the last ones padding (id 1)."""
    features = torch.randn(2, 6, 8, generator=torch.Generator().manual_seed(2))
    ids = torch.tensor([[12.0, 39.0, 7.0, 4.0, 1.0, 1.0], [25.0, 3.0, 1.0, 1.0, 1.0, 1.0]])
    return features, ids


def build():
    torch.manual_seed(0)
    return trace_default_qat(Model(), example_input(), "qnnpack")
