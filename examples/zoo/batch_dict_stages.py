"""Stages that pass one Dict[str, Tensor] batch along, as point-cloud detectors do.

A pillar encoder and a scatter stage read and write one batch dict. The wrapper quantizes the
voxel features in place (`batch["voxels"] = self.quant(batch["voxels"])`) before the first
stage; the point counts and the pillar coordinates are int32 entries of the same dict that never
pass the stub. The encoder builds a padding mask from the counts and multiplies the features with
it as floats; the scatter stage turns integer coordinates into indices with `.long()`, which is
exact. Stores come in program order: the quantized features stored under "voxels" do not reach
the reads of "num_points" and "coords", nor the stub's own input read before the store.

Expected findings:
  line 36 unquantized-operand  `features * padding`: the 0/1 padding mask never passed a stub
Not expected: truncating-cast at line 49 (the coordinates are integers from the input), a
comparison finding at line 34 (the counts are integers), anything at line 67.
"""
from typing import Dict

import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub

FX_TRACEABLE = False  # `batch["voxels"] = ...`: torch.fx cannot trace an item assignment


class PillarEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 8)

    def forward(self, batch: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        voxels = batch["voxels"]
        counts = batch["num_points"]
        slots = torch.arange(voxels.shape[1], dtype=torch.int32)
        padding = (counts[:, None] > slots[None, :]).float()
        features = self.linear(voxels)
        features = features * padding[:, :, None]
        batch["pillar_features"] = features.max(dim=1)[0]
        return batch


class Scatter(nn.Module):
    def __init__(self):
        super().__init__()
        self.nx = 6
        self.ny = 6

    def forward(self, batch: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        coords = batch["coords"]
        index = (coords[:, 0] * self.nx + coords[:, 1]).long()
        pillars = batch["pillar_features"]
        canvas = torch.zeros(pillars.shape[1], self.nx * self.ny)
        canvas[:, index] = pillars.t()
        batch["canvas"] = canvas.view(1, pillars.shape[1], self.ny, self.nx)
        return batch


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant = QuantStub()
        self.encoder = PillarEncoder()
        self.scatter = Scatter()
        self.dequant = DeQuantStub()

    def forward(self, batch: Dict[str, torch.Tensor]) -> torch.Tensor:
        batch["voxels"] = self.quant(batch["voxels"])
        batch = self.encoder(batch)
        batch = self.scatter(batch)
        return self.dequant(batch["canvas"])


def example_input():
    generator = torch.Generator().manual_seed(3)
    pillars, slots = 7, 5
    coords = torch.stack([torch.arange(pillars) % 5, torch.arange(pillars) % 6], dim=1).to(torch.int32)
    # One positional argument, the dict (a dict by itself would name forward's arguments).
    return ({
        "voxels": torch.randn(pillars, slots, 4, generator=generator) * 20,
        "num_points": torch.randint(1, slots + 1, (pillars,), generator=generator, dtype=torch.int32),
        "coords": coords,
    },)


# torch.onnx.export takes a dict input only as the last of its arguments, with keyword semantics.
ONNX_EXPORTABLE = False
