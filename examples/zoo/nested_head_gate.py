"""A detector whose forward returns its head's call directly (`return self.head(features)`), and a
wrapper that gates the rows by the objectness channel of that output, as YOLOX deployments zero
low-objectness rows: `keep = (out[..., 4] > 0.5).float()`.

The mask multiplies the quantized rows without a quant point of its own (unquantized-operand).
Traced after QAT (qat/qat_nested_head_gate), the head's one prediction conv has an output fake
quant, which holds the objectness with the 4 box channels (shared-stub-mask there). The fix
computes the mask from the float twin of the head's output, through two calls: the detector's
copy returns its value and the twin, and so does the head's, which the detector's copy returns
directly. The written archive was unreadable by LibTorch ("Schema not found for node", public
YOLOX): the detector's copy returned the head's whole tuple as its value.

Expected findings:
  line 51 unquantized-operand  the 0/1 mask multiplies the quantized rows
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.pred = nn.Conv2d(8, 5, 1)

    def forward(self, features):
        return self.pred(features).flatten(2).permute(0, 2, 1)


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.head = Head()

    def forward(self, image):
        return self.head(torch.relu(self.stem(image)))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.detector = Detector()
        self.dequant = DeQuantStub()

    def forward(self, image):
        out = self.detector(self.quant(image))
        keep = (out[..., 4] > 0.5).float().unsqueeze(-1)
        return self.dequant(out * keep)


def example_input():
    return torch.randn(1, 3, 8, 8, generator=torch.Generator().manual_seed(8))
