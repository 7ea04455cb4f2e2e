"""The S1 comparison in a helper that two heads call on two slices of the stub's output.

A utility `flag_is_set(feats)` (`feats[..., -1] == 1`) serves both the box head and the
keypoint head. The helper is one function with two callers, so its parameter has no single
float counterpart: `--fix` inlines one call per round into `forward`, where the comparison
reads the float twin of that call's argument (the float shadow), until no call is left. The
Python suggestion is a note: the helper would take the float tensor too, at every call.

Expected findings:
  line 33 shared-stub-mask  `self.quant` quantizes the flag columns together with the data
  line 20 eq-nonzero-const  `feats[..., -1] == 1` in the helper
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


def flag_is_set(feats: torch.Tensor) -> torch.Tensor:
    """Which rows have their flag (the last feature) set."""
    return feats[..., -1] == 1


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.boxes = nn.Linear(4, 4)
        self.points = nn.Linear(4, 2)
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        box_part, point_part = x[..., :5], x[..., 5:]
        boxes = self.boxes(box_part[..., :-1]).masked_fill(~flag_is_set(box_part)[..., None], 0.0)
        points = self.points(point_part[..., :-1]).masked_fill(~flag_is_set(point_part)[..., None], 0.0)
        return self.dequant(torch.cat([boxes, points], dim=-1))


def example_input():
    generator = torch.Generator().manual_seed(0)
    box_feats = torch.randn(1, 6, 4, generator=generator)
    point_feats = torch.randn(1, 6, 4, generator=generator)
    box_flag = torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0, 1.0]).view(1, 6, 1)
    point_flag = torch.tensor([0.0, 1.0, 1.0, 0.0, 1.0, 1.0]).view(1, 6, 1)
    return torch.cat([box_feats, box_flag, point_feats, point_flag], dim=-1)
