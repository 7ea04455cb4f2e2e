"""A padding mask made from sequence lengths by writing zeros into a tensor of ones.

Speech encoders build their non-padding mask this way: `x.new_ones(batch, time)`, then
`mask[i, lengths[i]:] = 0` for each sequence, and multiply it into the quantized frames after
each layer. The mask holds only constants, yet which places hold 0 is the input's: it is data,
an operand of the quantized product that never passed a stub (`unquantized-operand`), exactly as
the same mask made by a comparison (`lengths > positions`) is. Public round 23: the mask made
in place went unreported beside the comparison's.

Expected findings:
  line 38 unquantized-operand  the mask written at the input's lengths
  line 40 unquantized-operand  the same mask made by a comparison
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub

FX_TRACEABLE = False  # `keep[i, lengths[i]:] = 0`: torch.fx cannot trace an item assignment

class Model(nn.Module):
    def __init__(self, width: int = 4):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.frames = nn.Linear(width, width)
        self.dequant = DeQuantStub()

    def forward(self, x, lengths):
        x = self.quant(x)
        # The bounds are the input's, the values written constants.
        keep = torch.ones(x.size(0), x.size(1))
        for i in range(x.size(0)):
            keep[i, lengths[i]:] = 0
        # Zeros written at fixed places: no data, a constant the toolchain folds.
        window = torch.ones(x.size(0), x.size(1))
        window[:, 0] = 0
        y = self.frames(x) * window.unsqueeze(-1)
        y = y * keep.unsqueeze(-1)
        compared = (lengths.unsqueeze(1) > torch.arange(x.size(1))).float()
        y = y * compared.unsqueeze(-1)
        return self.dequant(y)


# torch.onnx.export turns the item assignment at the input's lengths into a graph ONNX Runtime
# cannot run (a Reshape of the written slice fails on the example's input).
ONNX_EXPORTABLE = False


def example_input():
    generator = torch.Generator().manual_seed(3)
    x = torch.randn(3, 6, 4, generator=generator) * 5
    lengths = torch.tensor([6, 4, 2])
    return x, lengths
