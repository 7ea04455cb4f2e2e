"""A heatmap head decoded in a free helper, as CenterNet-style detectors do: the top-k peaks'
flat indices become cell columns and rows (`idx % width`, `idx // width`), which are added to
the regressed sub-cell offsets of the quantized head.

Expected findings (each in the helper `decode_peaks`, on a line of its own):
  line 24 unquantized-operand  `(idx % width).float() + offsets[:, 0]`: cell columns without a stub
  line 25 unquantized-operand  the rows, likewise
The fix gives each a QuantStub of its own, after inlining the helper's call into `forward`
(a free function has no module to hold a stub), one finding per round. With `--input`, never
worse judges the two rewrites: whichever it keeps is in the model written, and whichever it
drops is not (a rewrite is never both "resolved" and "dropped").
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub

FX_TRACEABLE = False  # `batch, _, height, width = heat.shape`: torch.fx cannot unpack a traced shape


def decode_peaks(heat: torch.Tensor, offsets: torch.Tensor, k: int):
    batch, _, height, width = heat.shape
    scores, idx = heat.flatten(1).topk(k)
    offsets = offsets.flatten(2).gather(2, idx[:, None, :].expand(batch, 2, k))
    cols = (idx % width).float() + offsets[:, 0]
    rows = torch.div(idx, width, rounding_mode="floor").float() + offsets[:, 1]
    return torch.stack([cols, rows, scores], dim=2)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.dequant = DeQuantStub()
        self.heat = nn.Conv2d(3, 1, 3, padding=1)
        self.offset = nn.Conv2d(3, 2, 3, padding=1)

    def forward(self, image):
        x = self.quant(image)
        heat = torch.sigmoid(self.heat(x))
        return self.dequant(decode_peaks(heat, self.offset(x), 8))


def example_input():
    return torch.randn(2, 3, 12, 12, generator=torch.Generator().manual_seed(3))
