"""A model that calls a custom operator (torchvision::nms): LibTorch loads it only after
torchvision's operator library is loaded (qlint --load-library). The comparison with 1 after
the QuantStub is a hazard qlint must still find."""
import torch
import torchvision
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, boxes, scores):
        scores = self.quant(scores)
        keep = torchvision.ops.nms(boxes, scores, 0.5)
        kept = scores[keep]
        return self.dequant(kept), kept == 1
