"""A post-processing helper that applies one bool mask to two quantized tensors: the scores and
the box heights, `scores * keep` and `heights * keep`.

Both products are bool-arith (a bool tensor without a scale in a quantized `mul`), and each fix
quantizes `keep` as a float 0/1 mask with a QuantStub of its own. A free function has no module
to hold one: the first round of `--fix` inlines the helper's call into `forward` in the archive;
the second finds the other product in `forward` now, at a line that is still the helper's in the
Python source, where there is no `self`. The Python suggestion must say so, never write
`self.<stub>(...)` into the helper.

Expected findings:
  line 25 bool-arith  `scores * keep`
  line 25 bool-arith  `heights * keep`
"""
from typing import Tuple

import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


def keep_confident(scores: torch.Tensor, heights: torch.Tensor, threshold: float) -> Tuple[torch.Tensor, torch.Tensor]:
    """Zero the scores and heights of the boxes below the score threshold."""
    keep = scores > threshold
    return scores * keep, heights * keep


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.head = nn.Linear(8, 2)
        self.dequant = DeQuantStub()

    def forward(self, feats):
        x = self.head(self.quant(feats))
        scores, heights = keep_confident(torch.sigmoid(x[..., 0]), x[..., 1].abs(), 0.5)
        return self.dequant(scores), self.dequant(heights)


def example_input():
    generator = torch.Generator().manual_seed(2)
    return torch.randn(2, 10, 8, generator=generator)
