"""Two comparisons read one quantized slice: the previous frame's label channel.

Video-segmentation style: the last channel holds the previous frame's label map (0 background,
1 and 2 two tracked objects), and the head builds one mask per object from it. Both `== 1.0`
and `== 2.0` compare a quantized value with a nonzero constant. Their fixes both read a float
twin of the same slice; the rewriter once erased that slice's original twice and crashed
(LibTorch's "INTERNAL ASSERT FAILED" in --fix and --diff).

Expected findings:
  line 28 shared-stub-mask     the stub quantizes the label channel with the features
  line 30 eq-nonzero-const     `prev == 1.0`
  line 31 eq-nonzero-const     `prev == 2.0`
  line 33 unquantized-operand  twice: each 0/1 mask (a float cast of a comparison) meets the
                               quantized features without a stub of its own
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
        prev = x[:, -1]
        first = prev == 1.0
        second = prev == 2.0
        feats = x[:, :-1]
        return self.dequant(feats * first.unsqueeze(1).float()), self.dequant(feats * second.unsqueeze(1).float())


def example_input():
    x = torch.rand(1, 4, 3, 3, generator=torch.Generator().manual_seed(0)) * 3.0
    x[0, -1] = torch.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0], [1.0, 1.0, 2.0]])
    return x
