"""Dynamic quantization (`quantize_dynamic`) of an LSTM + Linear model, scripted: no findings.

Flow: `torch.ao.quantization.quantize_dynamic(model, {nn.LSTM, nn.Linear}, dtype=torch.qint8)`,
then `torch.jit.script`. Weights are int8; activations stay float and are quantized on the fly
inside each kernel (`quantized::linear_dynamic`, `aten::quantized_lstm`), so there is no quant
point in the graph and nothing for the rules to follow.

The model is a trajectory encoder: an LSTM over 8 time steps of 4 features, the last hidden
state through a Linear head, and a `speed > 0` style comparison on the float input, which is
exact (no quant point before it).

qlint must stay silent. Its simulation must not call the model "unquantized": it is
already quantized (dynamic), and the simulation runs its int8 kernels as they are
(SPEC.md section 6).
"""
import torch
from torch import nn
from flows import select_engine


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(input_size=4, hidden_size=16, num_layers=1, batch_first=True)
        self.head = nn.Linear(16, 3)

    def forward(self, trajectory):
        moving = trajectory[:, :, 2] > 0
        out, (h, c) = self.lstm(trajectory)
        logits = self.head(out[:, -1])
        return logits, moving.any(dim=1)


def example_input():
    generator = torch.Generator().manual_seed(0)
    return torch.randn(2, 8, 4, generator=generator)


def build():
    torch.manual_seed(0)
    select_engine()
    model = torch.ao.quantization.quantize_dynamic(Model().eval(), {nn.LSTM, nn.Linear}, dtype=torch.qint8)
    return torch.jit.script(model)
