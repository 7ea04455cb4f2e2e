"""A point-cloud grouping step: the stubbed points are gated by a 0/1 validity mask that never
passed a stub, then each point's nearest neighbours are picked by `topk` on squared distances,
traced after QAT with an int8 FakeQuantize.

`--fix` gives the mask a fake quant of its own (unquantized-operand) and takes the neighbour
choice on the float points (sim-divergence, with `--input`), in one run. The float twin of the
gated points must read the mask as the float model does: made after the mask's new fake quant,
it read the quantized mask, the next round put a fake quant on the twin's float points, and the
neighbours flipped as before (public round 17's pointMLP: 3.7 -> 2.9 dB, 167 of 862 -> 167).

Expected findings:
  line 32 unquantized-operand  the mask that gates the stubbed points
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import INT8_FAKE_QUANT, trace_qat

NEIGHBOURS = 4


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.embed = nn.Linear(3, 8)
        self.dequant = DeQuantStub()

    def forward(self, points, valid):
        # The mask zeroes the padded points, whose distances then tie at the origin.
        gated = self.quant(points) * valid[:, :, None]
        distances = ((gated[:, :, None, :] - gated[:, None, :, :]) ** 2).sum(-1)
        nearest = torch.topk(distances, NEIGHBOURS, dim=-1, largest=False)[1]
        features = self.embed(gated)
        grouped = torch.gather(features[:, None].expand(-1, features.shape[1], -1, -1), 2,
                               nearest[..., None].expand(-1, -1, -1, features.shape[2]))
        return self.dequant(grouped.amax(2))


def example_input():
    generator = torch.Generator().manual_seed(17)
    points = torch.rand(2, 48, 3, generator=generator) * 2 - 1
    valid = torch.ones(2, 48)
    valid[0, 40:] = 0.0
    return points, valid


def build():
    return trace_qat(Model(), example_input(), INT8_FAKE_QUANT)
