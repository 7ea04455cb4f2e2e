"""A scripted model whose forward updates its own state: a call counter and a running mean.

Flow: plain QuantStub/DeQuantStub model, `torch.jit.script` (float, not prepared), the way
streaming models (online normalisation, track smoothing) are written. Each call increments
the buffer `num_calls` and folds the batch mean of the features into the buffer
`running_mean` (a cumulative average: on the first call it is that batch's mean), and the
output is the features minus the running mean.

So the output depends on how often forward ran before (`running_mean` moves halfway towards
each batch mean). A simulation that calibrates, runs the float reference and runs the quantized
model on one and the same module sees three different states unless it restores the buffers
before each run, and then reports an error that quantization did not cause. Reference numbers
from PyTorch 1.13 on the example input, int16 (`self.quant` calibrated on it, symmetric
MinMaxObserver, scale 0.000212043): float and fake-quantized outputs of fresh modules agree to
SQNR 92.5 dB; running the quantized pass on the module the float pass already updated gives
SQNR 12.7 dB instead.

qlint must stay silent: `self.running_mean` is model state (a buffer), not an unquantized
model input, and nothing is compared.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.fc = nn.Linear(6, 4)
        self.relu = nn.ReLU()
        self.dequant = DeQuantStub()
        self.momentum = 0.5
        self.register_buffer("num_calls", torch.zeros((), dtype=torch.long))
        self.register_buffer("running_mean", torch.zeros(4))

    def forward(self, x):
        x = self.quant(x)
        feats = self.relu(self.fc(x))
        self.num_calls += 1
        self.running_mean = self.running_mean * (1.0 - self.momentum) + feats.mean(dim=0).detach() * self.momentum
        return self.dequant(feats - self.running_mean)


def example_input():
    generator = torch.Generator().manual_seed(0)
    return torch.randn(5, 6, generator=generator) * 3.0
