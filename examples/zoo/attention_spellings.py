"""Attention over a padded point set written the way transformer code often is: scores by
`torch.einsum`, the padding mask tested with `== 0` inside `masked_fill`, and the kept points
picked by indexing with the mask. Each spelling must be seen as what it is: einsum is a matrix
product, `valid == 0` is the mask inverted, and `feats[valid]` gates data by the mask.

The last input channel, a 0/1 validity flag, shares the features' stub; the positions never
pass a stub and meet the quantized features in the einsum.

Expected findings:
  line 33 shared-stub-mask  the flag quantized with the features, made a mask by `>`
  line 38 unquantized-operand  the einsum multiplies quantized features with float positions
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

    def forward(self, points, positions):
        """points: (batch, n, 5), the last channel 1 for a real point and 0 for padding;
        positions: (batch, n, 8), a float encoding computed outside the model."""
        # The features and the flag through one stub: the flag is a mask, the
        # features span tens, so one scale serves both badly.
        # The stub's line is where the shared-stub-mask finding points.
        # (The comparison that makes the flag a mask is on the next code line.)
        q = self.quant(points)
        valid = q[..., 4] > 0.5
        feats = self.embed(q[..., :4])
        # Attention scores: the features against the positions, which never
        # passed a stub (unquantized-operand on the einsum's line).
        scores = torch.einsum("bqd,bkd->bqk", feats, positions)
        scores = scores.masked_fill(valid[:, None, :] == 0, -10000.0)
        attended = torch.softmax(scores, dim=-1) @ feats
        kept = attended[valid]
        return self.dequant(kept)


def example_input():
    generator = torch.Generator().manual_seed(23)
    points = torch.randn(2, 10, 5, generator=generator) * 30
    points[..., 4] = 1.0
    points[0, 7:, 4] = 0.0
    points[1, 5:, 4] = 0.0
    positions = torch.randn(2, 10, 8, generator=generator)
    return points, positions
