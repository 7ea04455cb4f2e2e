"""Feature-pyramid levels quantized in a `for` loop over a list, by one QuantStub.

The neck first quantizes every level in a loop, `for level in [c3, c4, c5]:
quantized.append(self.quant(level))`, a real loop in TorchScript (a list of tensors, not a
ModuleList), then runs each lateral conv on its level. All levels share the stub's one scale: the
coarse level's range sets it, and the fine level keeps a few steps of it.

`--fix` unrolls the loop in the archive (its trip count is the list's length) and gives each
iteration after the first a clone of the stub; the Python suggestion says to use a list of stubs
indexed like the loop.

Expected findings:
  line 30 reused-stub  `self.quant` applied in a loop to each tensor of a list
"""
from typing import List

import torch
from qat import example_module

# The same pyramid as examples/zoo/fpn_levels_one_stub.py (its modules, top-down path and input);
# only the way the levels pass the stub differs.
pyramid = example_module("zoo", "fpn_levels_one_stub")
example_input = pyramid.example_input


class Model(pyramid.Model):
    def forward(self, c3, c4, c5):
        quantized: List[torch.Tensor] = []
        for level in [c3, c4, c5]:
            quantized.append(self.quant(level))
        outs: List[torch.Tensor] = []
        i = 0
        for lateral in self.lateral:
            outs.append(lateral(quantized[i]))
            i += 1
        return self.top_down(outs)
