"""A point filter written with PyTorch's alias spellings (`torch.not_equal`, `torch.multiply`),
as some code bases do. A scripted or traced graph resolves them to `aten::ne` and `aten::mul`;
torch.fx records the names the code called (`torch.not_equal`). The findings must be the same
under either spelling, in every front end.

The last input channel, a 0/1 padding flag, shares the coordinates' stub.

Expected findings:
  line 27 shared-stub-mask  the flag quantized with the coordinates
  line 33 eq-nonzero-const  `torch.not_equal(flag, 1.0)` on a quantized channel
  line 35 bool-arith  the bool mask in `torch.multiply`
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.embed = nn.Linear(4, width)
        self.dequant = DeQuantStub()

    def forward(self, points):
        q = self.quant(points)
        flag = q[..., 3]
        features = self.embed(q)
        # A point is real where its padding flag is not 1.
        # The comparison and the gate below are the lines the findings name;
        # each is written with an alias of the operator's usual name.
        real = torch.not_equal(flag, 1.0)
        # The bool mask gates the features.
        kept = torch.multiply(features, real[..., None])
        return self.dequant(kept)


def example_input():
    generator = torch.Generator().manual_seed(17)
    points = torch.randn(2, 12, 4, generator=generator) * 20
    points[..., 3] = 0.0
    points[1, 8:, 3] = 1.0
    return points
