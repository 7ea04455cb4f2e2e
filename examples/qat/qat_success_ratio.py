"""A keypoint grouper scores each candidate limb by the share of its sample points whose
affinity passes a threshold, `(affinity > 0).sum(1) / 10`, and joins that ratio to the quantized
affinities with `torch.cat`, as pose estimators' grouping does. Traced after default QAT.

The ratio never passed a quant point (unquantized-operand). On the example input every limb's
samples all pass or all fail, so the ratio is 0 or 1 there; it is a quotient, so other inputs give
0.1 .. 0.9, and `--fix --input` calibrates its new fake quant instead of taking scale 1 for the
whole numbers the input showed (public round 27: scale 1 rounded 0.4 to 0 on other inputs).

Expected findings:
  line 31 unquantized-operand  the ratio joined to the affinities
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat


class LimbScorer(nn.Module):
    def __init__(self, samples: int = 10):
        super().__init__()
        self.samples = samples
        self.quant = QuantStub()
        self.score = nn.Linear(samples, samples)
        self.head = nn.Linear(samples + 1, 4)
        self.dequant = DeQuantStub()

    def forward(self, affinities):
        affinity = self.score(self.quant(affinities))
        ratio = (affinities > 0).sum(1, keepdim=True) / self.samples
        joined = torch.cat([affinity, ratio], dim=1)
        return self.dequant(self.head(joined))


def example_input():
    # Each limb's samples all pass or all fail: the ratio is 0 or 1 on this input only.
    signs = torch.tensor([1.0, -1.0, 1.0, -1.0, 1.0, 1.0]).view(6, 1)
    generator = torch.Generator().manual_seed(0)
    return signs * (torch.rand(6, 10, generator=generator) + 0.1)


def build():
    torch.manual_seed(0)
    return trace_default_qat(LimbScorer(), example_input())
