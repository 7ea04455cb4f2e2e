"""One stub for two inputs of a trajectory model, and only the second holds a mask channel.

Agent histories and lane polylines go through the same QuantStub (written once, used twice, a
common shortcut). The lane points carry a validity flag in their last channel, compared with 0
after the stub; the agent histories carry none. The mask finding belongs to the second call,
where the lane points are quantized together with their flag; the first call quantizes plain
data.

Expected findings:
  line 32 reused-stub       `self.quant` is applied to a second tensor (first applied on line 31)
  line 32 shared-stub-mask  `self.quant` quantizes a 0/1 mask together with other data
Not expected: shared-stub-mask at line 31.
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.agent_encoder = nn.Linear(4, 8)
        self.lane_encoder = nn.Linear(2, 8)
        self.dequant = DeQuantStub()

    def forward(self, agents, lanes):
        # agents: (batch, agents, 4) positions and velocities; lanes: (batch, points, 3) with
        # x, y and a 0/1 validity flag.
        a = self.quant(agents)
        q = self.quant(lanes)
        invalid = q[:, :, 2] == 0
        lane_features = self.lane_encoder(q[:, :, :2]).masked_fill(invalid[:, :, None], 0.0)
        agent_features = self.agent_encoder(a)
        return self.dequant(agent_features.mean(dim=1) + lane_features.mean(dim=1))


def example_input():
    generator = torch.Generator().manual_seed(5)
    agents = torch.randn(2, 3, 4, generator=generator) * 30
    lanes = torch.randn(2, 6, 3, generator=generator) * 50
    lanes[:, :, 2] = (torch.arange(6) < 4).float()
    return agents, lanes
