"""One token encoder applied to the agents and to the map lanes, each reading its padding flag.

Trajectory-prediction style: the stubbed input holds 6 agent tokens and 6 lane tokens, each of
4 features and a last channel that is 1 for padding. One stub quantizes it all, so the flags
take the features' scale. The same encoder instance (shared weights) encodes both sets and
compares the flag with 1 to blank the padding: its `forward` has two callers, so its parameter
has one float counterpart per call. `--fix` inlines one call per round into `Model.forward`
(the method's `self` is the encoder it was called on), where the comparison reads the float
twin of that call's argument.

Expected findings:
  line 28 eq-nonzero-const  `tokens[..., -1] == 1` in the encoder
  line 41 shared-stub-mask  `self.quant` quantizes the flags with the features
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class TokenEncoder(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.mix = nn.Linear(dim, dim)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Mixes the features and blanks the padding tokens."""
        feats = torch.relu(self.mix(tokens[..., :-1]))
        is_pad = tokens[..., -1] == 1
        return feats.masked_fill(is_pad[..., None], 0.0)


class Model(nn.Module):
    def __init__(self, dim: int = 4):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.encoder = TokenEncoder(dim)
        self.dequant = DeQuantStub()

    def forward(self, x):
        tokens = self.quant(x)
        agents, lanes = tokens[:, :6], tokens[:, 6:]
        scene = torch.cat([self.encoder(agents), self.encoder(lanes)], dim=1)
        return self.dequant(scene)


def example_input():
    generator = torch.Generator().manual_seed(0)
    features = torch.randn(2, 12, 4, generator=generator) * 3.0
    padded = torch.zeros(2, 12, 1)
    padded[0, 4:6] = 1.0  # agents
    padded[1, 3:6] = 1.0
    padded[0, 10:] = 1.0  # lanes
    padded[1, 9:] = 1.0
    return torch.cat([features, padded], dim=-1)
