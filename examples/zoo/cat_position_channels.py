"""Quantized features joined with unquantized position channels by `torch.cat`.

Trajectory encoders often append each agent's time-step or position encoding to its features,
`torch.cat([features, encoding], dim=-1)`, computed from an input the model never stubs. The
joined tensor has one scale, set by the quantized features; the position channels were never
calibrated. `--fix` gives the joined-in part a quant point of its own (a new QuantStub on the
list item), which keeps float results identical.

Expected findings:
  line 31 unquantized-operand  `torch.cat` joins the quantized features with `encoding`
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.embed = nn.Linear(5, 12)
        self.mix = nn.Linear(16, 8)
        self.dequant = DeQuantStub()

    def forward(self, tracks, timestamps):
        x = self.quant(tracks)
        features = torch.relu(self.embed(x))
        phase = timestamps[..., None] * torch.tensor([1.0, 0.5])
        encoding = torch.cat([torch.sin(phase), torch.cos(phase)], dim=-1)
        joined = torch.cat([features, encoding], dim=-1)
        return self.dequant(self.mix(joined))


def example_input():
    generator = torch.Generator().manual_seed(13)
    tracks = torch.randn(3, 10, 5, generator=generator) * 5.0
    timestamps = torch.linspace(0.0, 4.5, 10).expand(3, 10).contiguous()
    return tracks, timestamps
