"""The S1 comparison after a branch that adds a missing batch dimension.

Deployment code often accepts one sample or a batch: `if x.dim() == 2: x = x.unsqueeze(0)`.
TorchScript keeps that as a real branch (prim::If) whose output is the stub's value, viewed or
not. The validity flag (the last feature) is then read with `== 1` from the branch's output,
after the flag was quantized together with the features by the one QuantStub.

Expected findings:
  line 30 shared-stub-mask  `self.quant` quantizes the 0/1 flag column together with the features
  line 33 eq-nonzero-const  `x[..., -1] == 1` on the branch's output
`--fix` gives the branch a float twin of its output (the stub's float input, unsqueezed or not)
and compares that; FX cannot trace the branch (it depends on the input's rank).
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub

FX_TRACEABLE = False  # `if x.dim() == 2` depends on the traced value


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.score = nn.Linear(5, 1)
        self.dequant = DeQuantStub()

    def forward(self, boxes):
        x = self.quant(boxes)
        if x.dim() == 2:  # one image's boxes, without the batch dimension
            x = x.unsqueeze(0)
        keep = x[..., -1] == 1
        scores = self.score(x[..., :-1]).squeeze(-1)
        return self.dequant(scores.masked_fill(~keep, 0.0))


def example_input():
    generator = torch.Generator().manual_seed(0)
    features = torch.randn(6, 5, generator=generator)
    flag = torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0, 1.0]).view(6, 1)
    return torch.cat([features, flag], dim=-1)
