"""Per-level validity masks computed inside a `for` loop that quantizes each level with one stub.

A multi-scale head loops over its levels: each level passes `self.quant`, its last channel (a 0/1
validity flag) is compared with 1 and gates the level's features. Everything sits in the loop
body: the reused stub, the comparison on the quantized flag, the bool mask in `*`.

`--fix` first unrolls the loop (its own round: the loop's nodes are gone afterwards), then
gives the second level a clone of the stub, compares the float flags and quantizes the masks.

Expected findings:
  line 32 reused-stub       `self.quant` applied in a loop to each tensor of a list
  line 32 shared-stub-mask  the flag channel shares the stub's scale with the features
  line 33 eq-nonzero-const  `q[:, -1] == 1` on the quantized flag
  line 34 bool-arith        `q[:, :-1] * mask[:, None]`
"""
from typing import List

import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, fine, coarse):
        outs: List[torch.Tensor] = []
        for level in [fine, coarse]:
            q = self.quant(level)
            mask = q[:, -1] == 1
            outs.append(q[:, :-1] * mask[:, None])
        return self.dequant(outs[0] + outs[1])


def example_input():
    generator = torch.Generator().manual_seed(3)
    fine = torch.randn(4, 5, generator=generator) * 0.2
    fine[:, -1] = torch.tensor([1.0, 1.0, 0.0, 0.0])
    coarse = torch.randn(4, 5, generator=generator) * 30.0
    coarse[:, -1] = torch.tensor([0.0, 1.0, 1.0, 0.0])
    return fine, coarse
