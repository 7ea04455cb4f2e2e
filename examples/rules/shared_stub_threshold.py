"""shared-stub-mask through a threshold: a slice of one stub's output becomes a mask through `>`.

A detection head: each row holds 8 box features and a confidence score in the last channel, all
quantized by one stub. The features (up to 4.0) set its int16 step, 4.0 / 32767.5 = 1.2207e-04,
and a score of exactly 0.5 quantizes to 4096 steps, 0.50001: `score > 0.5` keeps a box the
float model drops. `--fix` compares the stub's float input instead and gives the mask a stub of
its own (bool-arith).

The second gate is a threshold on a value computed from the quantized features: rows of 0.25
and 0.75 have a mean magnitude of exactly 0.5 in float, and once quantized (0.250009 and
0.750031) just above it. No static rule describes it, and the magnitude is accumulated into a
buffer the caller passes in (`energy += ...`, as point-cloud sampling code fills its distance
buffers): a float twin would miss what the buffer held before, so no rewrite reaches it.
After `--fix --input` the simulation of the fixed model still flips it and the output keeps
little SQNR: the summary says so first, at line 24 and at the `return`, and the exit code is 1.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


def active_rows(values, energy):
    energy += values.abs().mean(dim=-1)
    return energy > 0.5


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, boxes):
        x = self.quant(boxes)
        feats = x[:, :, :-1]
        keep = x[:, :, -1] > 0.5
        gated = feats * keep[:, :, None]
        empty = torch.zeros_like(x[:, :, 0])
        active = active_rows(feats, empty.clone()) | active_rows(gated, empty.clone())
        return self.dequant(gated.masked_fill(~active[:, :, None], 0.0))


def example_input():
    rows = [
        [0.25, 0.75, 0.25, 0.75, 0.25, 0.75, 0.25, 0.75, 1.0],  # on the energy threshold
        [1.0, 2.0, 4.0, 1.5, 1.0, 2.5, 1.0, 3.0, 0.5],  # on the score threshold; 4.0 sets the scale
        [0.9, -1.1, 1.3, 0.7, -0.8, 1.2, 1.0, -0.6, 0.9],  # kept
        [0.1, -0.1, 0.2, -0.2, 0.1, -0.1, 0.2, -0.2, 0.2],  # dropped
    ]
    return torch.tensor(rows).unsqueeze(0)
