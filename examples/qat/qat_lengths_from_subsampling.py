"""A speech encoder's subsampling returns its features and the int64 output lengths, and the
caller averages the quantized features over the valid frames, dividing by those lengths.

Flow: `get_default_qat_qconfig("fbgemm")`, `prepare_qat`, calibration, `torch.jit.trace`. The
lengths are whole numbers: the frames that are not zero padding, counted (int64), halved by the
stride-2 subsampling (`lengths >> 1`) and returned beside the features in a tuple: an integer
tensor, exact, that needs no quant point. qlint must report nothing: the dtype of a value a submodule returns in a tuple reaches
the caller (public round 28: conformer's `x / lengths.clamp(min=1)` was reported as an
unquantized operand, and --fix put a QuantStub on the int64 tensor, which fake quantization
cannot take: "not implemented for 'Long'", exit 2).
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat


class Subsampling(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 4, 3, stride=2, padding=1)

    def forward(self, x, lengths):
        return self.conv(x), lengths >> 1


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()
        self.subsampling = Subsampling()

    def forward(self, features):
        lengths = (features.abs().sum(1) > 0).sum(-1)
        x, out_lengths = self.subsampling(self.quant(features), lengths)
        pooled = x.sum(-1) / out_lengths.clamp(min=1)[:, None]
        return self.dequant(pooled)


def example_input():
    generator = torch.Generator().manual_seed(5)
    features = torch.randn(3, 4, 16, generator=generator)
    for row, valid in enumerate([16, 12, 7]):
        features[row, :, valid:] = 0
    return (features,)


def build():
    return trace_default_qat(Model(), example_input(), "fbgemm")
