"""Point-cloud grouping by k nearest neighbours (PointNet++ and Point Transformer style): pairwise
squared distances of the quantized coordinates, `topk(..., largest=False)` for each point's
neighbours, their features gathered and max-pooled. Scripted with one QuantStub.

No static rule sees a hazard: nothing compares with a constant, nothing is cast. But the
neighbour indices are a decision taken on quantized distances: points whose distances differ by
less than a quantization step change order once rounded, and the model groups other points.
`qlint check --input` counts the indices that differ from float's (sim-divergence at the topk),
and `--fix --input` computes the distances from the stub's float input instead, where the
neighbours are the float model's: float results unchanged, no index changes.

Expected findings: none without inputs (sim-divergence needs --input).
"""
import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class Model(nn.Module):
    def __init__(self, k: int = 4, width: int = 16):
        super().__init__()
        torch.manual_seed(0)
        self.k = k
        self.quant = QuantStub()
        self.embed = nn.Linear(3, width)
        self.dequant = DeQuantStub()

    def forward(self, xyz):
        points = self.quant(xyz)
        batch, count = points.shape[0], points.shape[1]
        distances = (points.unsqueeze(2) - points.unsqueeze(1)).pow(2).sum(-1)
        neighbours = distances.topk(self.k, dim=-1, largest=False)[1]
        features = self.embed(points)
        width = features.shape[-1]
        grouped = torch.gather(features.unsqueeze(1).expand(batch, count, count, width), 2,
                               neighbours.unsqueeze(-1).expand(batch, count, self.k, width))
        return self.dequant(grouped.max(dim=2).values)


def example_input():
    # A voxel-downsampled lidar sweep: points within millimetres of the centres of 2 m voxels, up to 40 m away. A
    # point's neighbours on the grid are almost equally far (by millimetres), and at int16 a
    # coordinate step is about 1 mm, a squared-distance step about 0.6 m^2.
    generator = torch.Generator().manual_seed(3)
    cells = torch.stack(torch.meshgrid(torch.arange(4.0), torch.arange(4.0), torch.arange(3.0), indexing="ij"), -1)
    centres = cells.reshape(1, 48, 3) * 2.0 + torch.tensor([-40.0, 30.0, -2.0])
    return centres.repeat(2, 1, 1) + 0.002 * torch.randn(2, 48, 3, generator=generator)
