"""A detection head with one output convolution per pyramid level in an `nn.ModuleList`
(yolov5's `Detect`), and a post-process that compares the objectness with 1.

After `prepare_qat` each level's convolution has its own output fake quant, named after the list
member (`head.levels.0`, `head.levels.1`): the ONNX export's QDQ scales are
`head.levels.0.activation_post_process.scale`, so qlint names the quant points as in Python.

Expected finding:
  line 43 eq-nonzero-const  `objectness == 1` on the levels' quantized outputs
"""
from typing import List

import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Head(nn.Module):
    def __init__(self, channels: int, outputs: int, levels: int):
        super().__init__()
        self.levels = nn.ModuleList([nn.Conv2d(channels, outputs, 1) for _ in range(levels)])

    def forward(self, features: List[torch.Tensor]) -> List[torch.Tensor]:
        out: List[torch.Tensor] = []
        for i, conv in enumerate(self.levels):
            out.append(conv(features[i]).flatten(2))
        return out


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant_p3 = QuantStub()
        self.quant_p4 = QuantStub()
        self.head = Head(4, 5, 2)
        self.dequant = DeQuantStub()

    def forward(self, p3, p4):
        levels = self.head([self.quant_p3(p3), self.quant_p4(p4)])
        predictions = torch.cat(levels, dim=2)
        objectness = predictions[:, 4]
        keep = objectness == 1
        return self.dequant(predictions), keep


def example_input():
    generator = torch.Generator().manual_seed(0)
    return torch.randn(1, 4, 8, 8, generator=generator), torch.randn(1, 4, 4, 4, generator=generator)
