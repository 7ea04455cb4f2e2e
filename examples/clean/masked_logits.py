"""No findings, also with --input: logits masked with -inf after the DeQuantStub.

A classifier head masks the classes a sample may not take with -inf, after dequantizing, as
masked softmax and log-probability code does. The float and simulated outputs hold -inf at the
same places: no error there (an -inf minus an -inf is no noise), and the SQNR is the logits'.
Before, the NaN of `-inf - -inf` made the SQNR NaN and qlint reported the output as NaN once
quantized.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.head = nn.Linear(6, 4)
        self.dequant = DeQuantStub()

    def forward(self, features, allowed):
        logits = self.dequant(self.head(self.quant(features)))
        return logits.masked_fill(~allowed, float("-inf"))


def example_input():
    generator = torch.Generator().manual_seed(1)
    features = torch.randn(3, 6, generator=generator)
    allowed = torch.tensor([[True, True, False, True], [True, False, False, True], [True, True, True, True]])
    return features, allowed
