"""A trajectory encoder that joins a validity flag to each step's quantized features with
`torch.cat`, as forecasting models feed the history's padding mask to their first layer.

The flag is a bool tensor (`~padding[..., None]`); `cat` promotes it to the 0/1 floats it joins,
and the joined tensor gets the features' one scale. The flag never passes a stub
(`unquantized-operand`), with `--input` as without (once the inputs show it is bool, it must not
vanish); its new quant point starts exact at scale 1.

Expected findings:
  line 31 unquantized-operand  the flag joined to the quantized features
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.embed = nn.Linear(2, width)
        self.encode = nn.Linear(width + 1, width)
        self.dequant = DeQuantStub()

    def forward(self, history, padding):
        steps = self.embed(self.quant(history))
        # The flag is 1 for a real step, 0 for padding.
        valid = ~padding[..., None]
        # The line the finding names.
        joined = torch.cat([steps, valid], dim=-1)
        return self.dequant(self.encode(joined))


def example_input():
    generator = torch.Generator().manual_seed(16)
    history = torch.randn(3, 10, 2, generator=generator) * 5
    padding = torch.zeros(3, 10, dtype=torch.bool)
    padding[1, 6:] = True
    padding[2, 3:] = True
    return history, padding
