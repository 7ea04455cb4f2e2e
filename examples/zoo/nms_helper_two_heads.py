"""One suppression helper called by two detection heads: a bool mask in a quantized `*`, twice.

A two-stage detector's utils module has `zero_suppressed(scores, keep)`, `scores * keep` with a
bool `keep`, and both the vehicle head and the pedestrian head call it on their own scores. The
scores are quantized, so the bool mask is a tensor without a scale in a quantized `mul`
(SPEC S2). A QuantStub for the mask needs a module to own it, and the helper has none; called
from two places, each call needs its own: `--fix` inlines one call site per round into
`forward` and gives its mask a stub there, until no call of the helper is left.

Expected findings:
  line 21 bool-arith  `scores * keep` in the helper, `keep` a bool mask
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


def zero_suppressed(scores: torch.Tensor, threshold: float) -> torch.Tensor:
    """Zero the scores under the threshold."""
    keep = scores > threshold
    return scores * keep


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.vehicle_head = nn.Linear(8, 3)
        self.pedestrian_head = nn.Linear(8, 3)
        self.dequant = DeQuantStub()

    def forward(self, feats):
        x = self.quant(feats)
        vehicles = zero_suppressed(torch.sigmoid(self.vehicle_head(x)), 0.5)
        pedestrians = zero_suppressed(torch.sigmoid(self.pedestrian_head(x)), 0.3)
        return self.dequant(vehicles), self.dequant(pedestrians)


def example_input():
    generator = torch.Generator().manual_seed(7)
    return torch.randn(2, 5, 8, generator=generator)
