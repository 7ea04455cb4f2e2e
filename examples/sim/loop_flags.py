"""Comparisons inside a `for` loop: the simulator judges each iteration against the same
iteration of the float run.

A recurrent-style step loop over time: `reset` compares the float input (never quantized, so no
result may differ) and `hit` compares the quantized flag with 1.0. The input's largest value is
3.0, so the int16 scale is 3.0 / 32767.5 and 1.0 becomes 10922 steps = 0.99995: every flag of
1.0 compares False once quantized. The flags over the 3 steps are 1, 0, 1: 2 of 3 `hit` results
differ, none of `reset`'s. (The simulator once compared every iteration with the first one's
float result and reported `reset` too.)
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, obs):
        x = self.quant(obs)
        outs = []
        for t in range(3):
            reset = obs[:, t, -1] == 1.0
            hit = x[:, t, -1] == 1.0
            outs.append(x[:, t, :-1] * reset.unsqueeze(-1).float() + hit.unsqueeze(-1).float())
        return self.dequant(torch.stack(outs, 1))


def example_input():
    obs = torch.tensor([[[0.5, -3.0, 1.0], [2.0, 0.25, 0.0], [-1.5, 1.75, 1.0]]])
    return obs
