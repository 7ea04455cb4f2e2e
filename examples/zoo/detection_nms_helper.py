"""A detection head whose suppression mask is computed and applied in a free helper function.

Anchor-based heads keep post-processing in a utils module: `suppress_overlaps(boxes, scores)`
computes which boxes a higher-scoring box overlaps (pairwise IoU above a threshold) and returns
the scores with the suppressed ones zeroed, `scores * keep`, where `keep` is a bool tensor. The
scores are quantized (they come from the head's Linear after the stub), so the bool `keep` is a
tensor without a scale in a quantized `mul`: toolchains run it on the CPU (SPEC S2).

The fix (a float cast and a QuantStub of its own for `keep`) needs a module to hold the stub, and
the helper has none: `--fix` inlines the helper's one call into `forward` in the archive and
quantizes there; the Python suggestion says so in a note (a free function cannot own a stub).

Expected findings:
  line 33 bool-arith  `scores * keep` in the helper, `keep` a bool mask
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


def suppress_overlaps(boxes: torch.Tensor, scores: torch.Tensor, iou_threshold: float) -> torch.Tensor:
    """Zero the score of each box that a higher-scoring box overlaps by more than the threshold."""
    low = torch.max(boxes[:, :, None, :2], boxes[:, None, :, :2])
    high = torch.min(boxes[:, :, None, 2:], boxes[:, None, :, 2:])
    overlap = (high - low).clamp(min=0.0)
    inter = overlap[..., 0] * overlap[..., 1]
    size = boxes[..., 2:] - boxes[..., :2]
    area = size[..., 0] * size[..., 1]
    iou = inter / (area[:, :, None] + area[:, None, :] - inter + 1e-6)
    higher = scores[:, None, :] > scores[:, :, None]
    suppressed = ((iou > iou_threshold) & higher).any(dim=-1)
    keep = ~suppressed
    return scores * keep


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.box_head = nn.Linear(16, 4)
        self.score_head = nn.Linear(16, 1)
        self.dequant = DeQuantStub()

    def forward(self, feats):
        x = self.quant(feats)
        deltas = self.box_head(x)
        centres = deltas[..., :2]
        half = deltas[..., 2:].abs() + 0.5
        boxes = torch.cat([centres - half, centres + half], dim=-1)
        scores = torch.sigmoid(self.score_head(x)[..., 0])
        kept = suppress_overlaps(boxes, scores, 0.5)
        return self.dequant(kept)


def example_input():
    generator = torch.Generator().manual_seed(5)
    return torch.randn(2, 12, 16, generator=generator)
