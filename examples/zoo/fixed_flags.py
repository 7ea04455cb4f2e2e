"""A detection head with configuration flags: branches that the saved model can never take.

Heads are configured by attributes set in `__init__`: an auxiliary output that is off for
deployment (`self.with_aux = False`), a decoder variant chosen by number (`self.variant`), and
a training-only loss path (`if self.training:`). The branches that cannot run in the exported
model hold hazards of their own (a comparison of quantized scores with 1, a bool mask in `*`);
reporting them, or rewriting them with `--fix`, would be noise. qlint folds branches on
attributes the archive fixes and `self.training` (false: a quantized model runs in eval mode),
and reports only what can run.

Expected finding:
  line 42 eq-nonzero-const   `objectness == 1` in the variant the model uses
Not expected: anything at lines 36, 38, 40 and 47, in branches that never run.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.head = nn.Linear(6, 6)
        self.dequant = DeQuantStub()
        self.with_aux = False
        self.variant = 2

    def forward(self, features):
        x = self.quant(features)
        scores = self.head(x)
        objectness = scores[:, :, 0]
        out = scores
        if self.training:
            out = out * (objectness > 0)
        if self.with_aux:
            out = out + (objectness == 1).float()[:, :, None]
        if self.variant == 3:
            out = out * (scores[:, :, 1] == 1)[:, :, None]
        else:
            keep = objectness == 1
            out = out.masked_fill(keep[:, :, None], 0.0)
        if not self.with_aux:
            out = out * 2.0
        else:
            out = out * (scores[:, :, 2] != 1)[:, :, None]
        return self.dequant(out)


def example_input():
    generator = torch.Generator().manual_seed(2)
    return torch.randn(2, 5, 6, generator=generator)


# Its training-only branch is written for another shape: QAT calibration runs in training mode.
ONNX_EXPORTABLE = False
