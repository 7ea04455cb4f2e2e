"""A position embedding, `nn.Sequential(Linear, GELU, Linear)`, called on the visible and on the
masked points' centres (as masked point-cloud autoencoders do), traced after QAT with PyTorch's
default qconfig.

QAT gives each Linear one output fake quant, shared by both calls: the masked centres, ten times
wider, set the scale of both. Two reused-stub findings on the second call's line (the first
Linear's output and the last one's); `--fix` clones each of the two fake quants in one run (public
round 16's Point-MAE: the second was skipped without a word, and a second `--fix` took output 1
from 4.8 dB to 38.8 dB).

Expected findings:
  line 33 reused-stub  the first Linear's output fake quant, shared by both calls
  line 33 reused-stub  the last Linear's output fake quant, shared by both calls
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.embed = nn.Sequential(nn.Linear(3, 16), nn.GELU(), nn.Linear(16, 8))
        self.dequant_visible = DeQuantStub()
        self.dequant_masked = DeQuantStub()

    def forward(self, centres):
        centres = self.quant(centres)
        visible = self.embed(centres[:, :8])
        masked = self.embed(centres[:, 8:] * 10.0)
        return self.dequant_visible(visible), self.dequant_masked(masked)


def example_input():
    generator = torch.Generator().manual_seed(16)
    return (torch.randn(2, 16, 3, generator=generator),)


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
