"""Each image's best candidate box by score, the candidates' boxes and scores through one stub:
the int16 step is set by the coordinates (up to 600 px: 600 / 32767.5 = 0.0183), so two scores
0.003 apart, 0.700 and 0.703, both quantize to 38 steps (0.6958). Float picks the second box of
the first image, the quantized tie its first (argmax takes the first of equal values): the output
keeps its shape, but one of its rows is another box, whose SQNR the simulation measures.

With `--input`, sim-divergence reports the argmax and the output, and the output's note names the
argmax as what picks its rows, rather than leaving the advice to give lost precision a quant
point of its own (public round 24: RetinaFace kept its 2 boxes once quantized, one of them
another prior's after a threshold flipped).

Expected findings: none
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, candidates):
        x = self.dequant(self.quant(candidates))
        best = x[:, :, 4].argmax(dim=1)
        return x[:, :, :4].gather(1, best.view(-1, 1, 1).expand(-1, 1, 4)).squeeze(1)


def example_input():
    return torch.tensor([
        [[10.0, 20.0, 110.0, 220.0, 0.700], [300.0, 40.0, 600.0, 380.0, 0.703], [5.0, 5.0, 9.0, 9.0, 0.1]],
        [[50.0, 60.0, 90.0, 140.0, 0.3], [200.0, 210.0, 260.0, 300.0, 0.9], [1.0, 2.0, 3.0, 4.0, 0.2]],
    ])
