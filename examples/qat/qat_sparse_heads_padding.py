"""A decoder block that keeps a sparse buffer (which attention heads align text to audio, as
speech models register with `to_sparse()`) and takes a float 0/1 padding mask through the
data's one stub, traced after QAT with an int8 FakeQuantize.

`--fix` gives the mask a fake quant of its own. The sparse buffer must not stop it (public round
17's whisper: "Could not run 'aten::equal' ... 'SparseCPU'", exit 2, for every `--fix`), and the
new fake quant starts at scale 1, exact for the mask the inputs show to be 0 and 1 (before: scale
1/127.5, each kept frame scaled by 0.99608, "Resolved" at a loss of 36 dB).

Expected findings:
  line 35 reused-stub  the padding mask through the data's stub
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import INT8_FAKE_QUANT, trace_qat


class Model(nn.Module):
    def __init__(self, width: int = 8, heads: int = 2):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.proj = nn.Linear(width, width)
        self.dequant = DeQuantStub()
        # Which (layer, head) pairs align: read by a decoding step, not by forward.
        alignment = torch.zeros(2, heads, dtype=torch.bool)
        alignment[1, 0] = True
        self.register_buffer("alignment_heads", alignment.to_sparse(), persistent=False)

    def forward(self, frames, padding):
        frames = self.quant(frames)
        # One stub for every input, as a wrapper written in a hurry has it: the 0/1 mask
        # shares the frames' scale.
        padding = self.quant(padding)
        return self.dequant(self.proj(frames) * padding[..., None])


def example_input():
    generator = torch.Generator().manual_seed(17)
    frames = torch.randn(2, 10, 8, generator=generator) * 3
    padding = torch.ones(2, 10)
    padding[1, 6:] = 0.0
    return frames, padding


def build():
    return trace_qat(Model(), example_input(), INT8_FAKE_QUANT)
