"""No findings: without a quant point nothing is quantized, so float comparisons are exact."""
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        mask = x[:, :, :, -1] == 1
        return x * mask[:, :, :, None]


def example_input():
    return torch.randn(1, 2, 4, 4)
