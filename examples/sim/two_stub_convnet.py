"""A small conv net with two inputs, each through its own stub: the simulator's bit-exactness
test model."""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant_image = QuantStub()
        self.quant_gain = QuantStub()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(8, 4, 3)
        self.dequant = DeQuantStub()

    def forward(self, image, gain):
        x = self.relu(self.conv1(self.quant_image(image)))
        x = self.conv2(x).mean(dim=(2, 3))
        x = x * self.quant_gain(gain)
        return self.dequant(x)


def example_input():
    generator = torch.Generator().manual_seed(1)
    return (torch.randn(1, 3, 8, 8, generator=generator) * 4.0,
            torch.rand(1, 4, generator=generator))
