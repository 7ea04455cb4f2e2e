"""The S1 comparison in a free helper function and in a loop, plus a ModuleList of heads.

Iterative track refinement: the tracks pass a QuantStub; a free helper `valid_mask` (the kind
of function kept in a utils module) computes which tracks are valid with `== 1` on the
quantized flag column; a `for` loop refines the state `num_iters` times (a real loop in
TorchScript: the state is loop-carried), re-checking the flag with `== 1` and multiplying the
update by the bool mask; a ModuleList of heads (unrolled by TorchScript) reads the result.

Expected findings:
  line 40 shared-stub-mask  `self.quant` quantizes the 0/1 flag column together with the data
  line 26 eq-nonzero-const  `feats[..., -1] == 1` in the helper, called from forward on line 41
  line 44 eq-nonzero-const  `state[..., -1] == 1` inside the loop, on the loop-carried state
  line 45 bool-arith        `self.refine(state) * alive[..., None]` inside the loop
One diagnostic per source location: the loop body is one location however often it runs, and
the ModuleList's unrolled calls hold no hazard.
"""
from typing import List

import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


def valid_mask(feats: torch.Tensor) -> torch.Tensor:
    """The validity flag (last feature) of each track, as a bool mask."""
    return feats[..., -1] == 1


class Model(nn.Module):
    def __init__(self, num_iters: int = 3, num_heads: int = 3):
        super().__init__()
        torch.manual_seed(0)
        self.num_iters = num_iters
        self.quant = QuantStub()
        self.refine = nn.Linear(8, 7)
        self.heads = nn.ModuleList([nn.Linear(8, 2) for _ in range(num_heads)])
        self.dequant = DeQuantStub()

    def forward(self, tracks):
        x = self.quant(tracks)
        keep = valid_mask(x)
        state = x
        for _ in range(self.num_iters):
            alive = state[..., -1] == 1
            delta = self.refine(state) * alive[..., None]
            state = torch.cat([state[..., :-1] + delta, state[..., -1:]], dim=-1)
        outputs: List[torch.Tensor] = []
        for head in self.heads:
            outputs.append(head(state))
        out = torch.stack(outputs, dim=1).masked_fill(~keep[:, None, :, None], 0.0)
        return self.dequant(out)


def example_input():
    generator = torch.Generator().manual_seed(0)
    features = torch.randn(1, 6, 7, generator=generator)
    flag = torch.tensor([1.0, 1.0, 0.0, 1.0, 0.0, 1.0]).view(1, 6, 1)
    return torch.cat([features, flag], dim=-1)
