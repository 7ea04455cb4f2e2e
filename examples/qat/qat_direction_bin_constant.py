"""A 3-D box head adds a half turn to each box's heading where its direction classifier picks
bin 1, `heading = residual + pi * bin.to(residual.dtype)`, as lidar detectors decode yaw. Traced
after QAT with int8 fake quants; the residuals pass one QuantStub, the bins none.

On the example input every box faces forward, so the bins are all 0: `--fix --input` cannot
calibrate a quant point for `pi * bin` on it (its observer would give the scale 1.2e-07, and a
bin of 1 on the next input would saturate: public round 30, OpenPCDet's direction bins went from
51.4 dB to -1.8 dB), and says so instead of writing the model.

Expected findings:
  line 34 unquantized-operand  `pi * bin`, which never passed a QuantStub
"""
import math

import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import INT8_FAKE_QUANT, trace_qat


class DirectionBinHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.direction = nn.Conv1d(1, 2, 1)
        with torch.no_grad():  # bin 1 where the residual is negative
            self.direction.weight.copy_(torch.tensor([[[1.0]], [[-1.0]]]))
            self.direction.bias.zero_()
        self.dequant = DeQuantStub()

    def forward(self, residuals):
        r = self.quant(residuals)
        bin = self.direction(r).argmax(dim=1)
        heading = r[:, 0] + math.pi * bin.to(r.dtype)
        return self.dequant(heading)


def example_input():
    generator = torch.Generator().manual_seed(3)
    return torch.rand(2, 1, 32, generator=generator) * 0.5 + 0.1  # every box forward: bins all 0


def build():
    torch.manual_seed(0)
    return trace_qat(DirectionBinHead(), example_input(), INT8_FAKE_QUANT)
