"""A detection head whose number of detections the data decides: boxes whose score passes a
threshold are kept, and the quantized scores pass it for more boxes than the float ones.

Each row holds 4 box coordinates and a score. The stub's int16 step is set by the coordinates
(up to 600 px: 600 / 32767.5 = 0.0183), so a score of 0.502 quantizes to 27 steps, 0.4944: a
box the float model keeps is dropped (0.51 becomes 0.5127 and stays). The model returns the
kept boxes, so the simulated output has another shape (3 boxes instead of 4). `qlint check`
says the score channel shares the coordinates' stub (shared-stub-mask); `--input` measures the
flip and the output whose shape changed (sim-divergence; it used to stop with "The size of
tensor a (4) must match the size of tensor b (3)"). `--fix --input` takes the threshold on the
float scores (the float shadow), and the shapes agree again.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, detections):
        x = self.quant(detections)
        keep = x[:, 4] > 0.5
        return self.dequant(x[keep][:, :4])


def example_input():
    return torch.tensor([
        [10.0, 20.0, 110.0, 220.0, 0.9],
        [300.0, 40.0, 600.0, 380.0, 0.502],  # just above the threshold
        [50.0, 60.0, 90.0, 140.0, 0.3],
        [5.0, 500.0, 45.0, 560.0, 0.51],
        [200.0, 210.0, 260.0, 300.0, 0.7],
    ])
