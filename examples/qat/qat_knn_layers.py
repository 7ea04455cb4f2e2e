"""Edge features in the style of DGCNN: one kNN helper called on the stubbed points and again on
a layer's features (traced: two copies of its `topk` at one line), traced after QAT with
PyTorch's default qconfig.

Both kNN graphs change once quantized (int8). The first is computed from the points' stub and
can be taken on the float points instead; the second is computed from the layer's quantized
features, which have no float twin. `--fix --input` reroots the first copy, says so ("for 1 of
its 2 copies on this line"), and notes why not the other; the finding stays for it.

Expected findings: none (static).
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub
from qat import trace_default_qat


def knn(x, k):
    inner = -2 * torch.matmul(x.transpose(2, 1), x)
    xx = torch.sum(x ** 2, dim=1, keepdim=True)
    return (-xx - inner - xx.transpose(2, 1)).topk(k=k, dim=-1)[1]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.conv = nn.Conv1d(3, 8, 1)
        self.dequant = DeQuantStub()

    def forward(self, points):
        p = self.quant(points)
        near_points = knn(p, 4)
        features = self.conv(p)
        near_features = knn(features, 4)
        return self.dequant(features), near_points, near_features


def example_input():
    return torch.randn(2, 3, 64, generator=torch.Generator().manual_seed(0))


def build():
    torch.manual_seed(0)
    return trace_default_qat(Model(), example_input(), "qnnpack")
