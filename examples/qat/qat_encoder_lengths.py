"""A speech encoder wrapped for QAT the hurried way: the features and the utterance lengths
through one QuantStub (`self.enc(self.quant(xs), self.quant(lens))`), the encoder building its
padding mask from the lengths and returning `(ys, masks)`, as ASR encoders do; traced after QAT
with PyTorch's default qconfig.

The stub's moving average calibrates on the features (range about [-3, 3]) and barely moves for
the lengths (10 to 16): they clip near 3, so the padding mask `t < lengths` flips for most frames
and the encoder's output loses most of its precision. `check --input` reports the reused stub,
the flipped mask and the output; the output's finding is at the encoder's line that computes it
(the trace keeps no line for the wrapper's call). `--fix --input` gives the lengths a fake quant
of their own and takes the mask on the float lengths: the output recovers, the mask output's
values all agree, and the summary counts all three problems as resolved.

Expected findings (without --input):
  line 45 reused-stub  `self.quant` applied to the lengths too
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat

FRAMES, FEATURES = 16, 8


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(FEATURES, FEATURES)

    def forward(self, xs, lengths):
        frames = torch.arange(xs.size(1)).view(1, -1)
        masks = frames < lengths.view(-1, 1)
        ys = self.proj(xs).masked_fill(~masks.unsqueeze(-1), 0.0)
        return ys, masks


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.enc = Encoder()
        self.dequant = DeQuantStub()

    def forward(self, xs, lens):
        ys, masks = self.enc(self.quant(xs), self.quant(lens))
        return self.dequant(ys), masks


def example_input():
    """Three utterances of 16 frames, 16, 10 and 13 of them valid."""
    xs = torch.randn(3, FRAMES, FEATURES, generator=torch.Generator().manual_seed(2))
    return xs, torch.tensor([16.0, 10.0, 13.0])


def build():
    torch.manual_seed(0)
    return trace_default_qat(Model(), example_input(), "qnnpack")
