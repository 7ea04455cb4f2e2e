"""Score filtering as YOLO-style post-processing does it, inside forward: candidate anchors whose
best class score passes a threshold, their rows taken out by a bool mask, then a second threshold
on the rows' best score; the candidate mask and the three best rows are returned too. Scripted
with one QuantStub.

Five anchors score just under 0.25 (0.2499999), and quantization rounds them up to 0.2500076:
the first threshold flips for them (sim-divergence at `candidates`, with --input), so the second
one runs on 16 rows instead of 11. Every one of those rows passes it, float or quantized: the
second threshold flips nothing, and the simulation does not count its rows as flips (it cannot
pair 16 results with 11; before, all 16 were counted, "16 of 16"), nor is the topk over those
rows (its indices point into other rows than float's). The returned mask is a bool
output: its difference is the first threshold's flips, which are reported there, not as an
output SQNR (before: "output 1 keeps only 3.4 dB SQNR", with advice that does not apply).

Expected findings: none without inputs (sim-divergence needs --input).
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, scores):
        x = self.quant(scores)
        candidates = x.amax(1) > 0.25
        rows = x[0].t()[candidates[0]]
        best = rows.max(1)[0]
        keep = best > 0.25
        top = best.topk(3)[1]
        return self.dequant(rows[keep]), candidates, top


def example_input():
    # Class scores of 50 anchors (1 x 4 classes x 50): 11 pass 0.25 clearly, 5 sit just under it.
    generator = torch.Generator().manual_seed(0)
    scores = torch.rand(1, 4, 50, generator=generator) * 0.2
    scores[0, 0, :5] = 0.2499999
    scores[0, 1, 5:15] = 0.6
    scores[0, 2, 20] = 1.0
    return scores
