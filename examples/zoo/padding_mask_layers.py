"""A DETR-style image transformer whose padding mask rides in the stubbed input and travels to
every attention layer: through a small class holding the features and their mask, out of the
backbone in a tuple, resized to the feature map with `F.interpolate`, and passed to each encoder
layer as `key_padding_mask`.

The input's last channel marks padded pixels with 1. It passes the stub with the image, so the
mask's 1s take the image's scale and a wide image range rounds them to 0. What matters here is
where the mask is used: in the layers, several calls away from the stub.

Expected finding:
  line 63 shared-stub-mask   `self.quant` quantizes the mask with the image; the mask reaches
                             `masked_fill` in each layer
"""
from typing import Tuple

import torch
import torch.nn.functional as F
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Masked:
    """Features and their padding mask, as detection code passes them around."""

    def __init__(self, features: torch.Tensor, mask: torch.Tensor):
        self.features = features
        self.mask = mask


class Backbone(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv = nn.Conv2d(3, channels, 3, stride=2, padding=1)

    def forward(self, batch: Masked) -> Tuple[torch.Tensor, torch.Tensor]:
        features = torch.relu(self.conv(batch.features))
        mask = F.interpolate(batch.mask[None].float(), size=features.shape[-2:]).to(torch.bool)[0]
        return features, mask


class EncoderLayer(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.key = nn.Linear(channels, channels)
        self.value = nn.Linear(channels, channels)

    def forward(self, tokens: torch.Tensor, key_padding_mask: torch.Tensor) -> torch.Tensor:
        scores = torch.bmm(tokens, self.key(tokens).transpose(1, 2))
        scores = scores.masked_fill(key_padding_mask[:, None, :], -1e4)
        return tokens + torch.bmm(torch.softmax(scores, dim=-1), self.value(tokens))


class Model(nn.Module):
    def __init__(self, channels: int = 8, layers: int = 2):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.backbone = Backbone(channels)
        self.layers = nn.ModuleList([EncoderLayer(channels) for _ in range(layers)])
        self.dequant = DeQuantStub()

    def forward(self, image_and_padding):
        x = self.quant(image_and_padding)
        features, mask = self.backbone(Masked(x[:, :3], x[:, 3].to(torch.bool)))
        tokens = features.flatten(2).transpose(1, 2)
        padding = mask.flatten(1)
        for layer in self.layers:
            tokens = layer(tokens, padding)
        return self.dequant(tokens)


def example_input():
    generator = torch.Generator().manual_seed(8)
    x = torch.randn(2, 4, 8, 8, generator=generator)
    x[:, 3] = 0.0
    x[0, 3, :, 6:] = 1.0  # the right of the first image is padding
    x[1, 3, 5:, :] = 1.0  # the bottom of the second
    return x
