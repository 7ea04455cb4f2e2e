"""Attention layers of one class, each adding a -10000 padding bias to its quantized scores, as
trajectory and BERT-style encoders do (one instance first, then an encoder's ModuleList of them,
the keep mask passed into every layer), scripted with one QuantStub.

The bias never passes a stub (unquantized-operand, once: the instances share their code). A new
QuantStub on it would need the scores' scale to span 10000, which rounds them away, so the
finding offers none, as for a single layer (zoo/finite_padding_bias), though the keep mask is made
a bias inside the layers' shared code and passed in from forward. Before, `--fix --input` found
the value under another instance's name (the instances share one TorchScript graph: qlint names
`first`, the simulator had instrumented `encoder.layers.0`), found nothing, and wrote the stub:
"Resolved".

Expected findings:
  line 31 unquantized-operand  the -10000 bias added to each layer's quantized scores
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import example_module


class Layer(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.query = nn.Linear(width, width)
        self.key = nn.Linear(width, width)

    def forward(self, x, keep):
        bias = ((1.0 - keep) * -10000.0).unsqueeze(1)
        scores = torch.bmm(self.query(x), self.key(x).transpose(1, 2))
        return torch.bmm((scores + bias).softmax(-1), x)


class Encoder(nn.Module):
    def __init__(self, width: int, depth: int):
        super().__init__()
        self.layers = nn.ModuleList([Layer(width) for _ in range(depth)])

    def forward(self, x, keep):
        for layer in self.layers:
            x = layer(x, keep)
        return x


class Model(nn.Module):
    def __init__(self, width: int = 8, depth: int = 2):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.encoder = Encoder(width, depth)
        self.first = Layer(width)
        self.dequant = DeQuantStub()

    def forward(self, tokens, keep):
        x = self.first(self.quant(tokens), keep)
        return self.dequant(self.encoder(x, keep))


# The tokens and keep mask of examples/zoo/finite_padding_bias.py.
example_input = example_module("zoo", "finite_padding_bias").example_input
