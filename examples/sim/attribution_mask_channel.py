"""A trajectory encoder whose cause is one stub among three: the agents' existence mask is the
last channel of the agents tensor, and that tensor goes through one stub with positions up to
800 m, so the mask's 1 becomes 1.001 (int16 step 800 / 32767.5 = 0.0244: 1 is 40.96 steps, 41
once rounded). Far downstream, `active > 2.0` counts the agents an actor sees and flips for the
rows with exactly two (2.002 > 2); the map and the goal have stubs of their own and are not to
blame.

`qlint sim --attribute` and `qlint check --input` name `self.quant_agents` (the line marked
"the cause"), with what quantizing it alone and keeping it in float does to the flipped
comparison, and `check` points to the static shared-stub-mask finding at that stub; the map's
and the goal's stubs are not named.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant_agents = QuantStub()
        self.quant_map = QuantStub()
        self.quant_goal = QuantStub()
        self.encode = nn.Linear(2, 8)
        self.dequant = DeQuantStub()

    def forward(self, agents, lanes, goal):
        a = self.quant_agents(agents)  # the cause
        m = self.quant_map(lanes)
        g = self.quant_goal(goal)
        exists = a[:, :, 2]
        features = self.encode(a[:, :, :2]).masked_fill((exists == 0).unsqueeze(-1), 0.0)
        context = features.mean(dim=1) + m.mean(dim=1) + g
        active = exists.sum(dim=1)
        crowded = active > 2.0
        return self.dequant(context), crowded


def example_input():
    generator = torch.Generator().manual_seed(3)
    positions = (torch.rand(3, 4, 2, generator=generator) - 0.5) * 1600.0
    exists = torch.tensor([[1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0]])
    agents = torch.cat([positions, exists.unsqueeze(-1)], dim=-1)
    agents[0, 0, 0] = 800.0  # the widest position: sets the stub's scale
    lanes = torch.rand(3, 6, 8, generator=generator) * 2.0
    goal = torch.rand(3, 8, generator=generator)
    return agents, lanes, goal
