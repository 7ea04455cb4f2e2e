"""A hazard after non-ASCII text on its line: SARIF columns count UTF-16 code units, so the
region must start where an editor shows `x[:, 0] == 1`, not where its bytes start."""
from typing import Tuple

import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x) -> Tuple[torch.Tensor, str]:
        x = self.quant(x)
        label = "掩码🙂"; mask = x[:, 0] == 1
        return self.dequant(x * mask[:, None].float()), label
