"""A decoder layer in the style of set-prediction detectors: `with_pos_embed` adds a position
embedding to the queries at one call and a different one to the memory at another, both
embeddings computed outside the quantized network (sine tables passed in as float).

Expected findings: one unquantized-operand in the helper, whose `pos` never passed a QuantStub.
`--fix` must not put one stub in the helper: both calls run its body, so that stub would quantize
the query embedding and the memory's with one scale (a reused stub made by the fix). Each call
is inlined into `forward` in a round of its own, with a stub for its embedding; the Python
suggestion says to quantize the argument at each call.
"""
from typing import Optional

import torch
from torch import nn
from torch.ao.quantization import DeQuantStub, QuantStub


class DecoderLayer(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.query_proj = nn.Linear(width, width)
        self.key_proj = nn.Linear(width, width)

    def with_pos_embed(self, tensor, pos: Optional[torch.Tensor]):
        return tensor if pos is None else tensor + pos

    def forward(self, queries, memory, query_pos, memory_pos):
        q = self.query_proj(self.with_pos_embed(queries, query_pos))
        k = self.key_proj(self.with_pos_embed(memory, memory_pos))
        weights = torch.softmax(q @ k.transpose(-2, -1) * 0.25, dim=-1)
        return weights @ memory


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.quant_queries = QuantStub()
        self.quant_memory = QuantStub()
        self.dequant = DeQuantStub()
        self.layer = DecoderLayer(16)

    def forward(self, queries, memory, query_pos, memory_pos):
        out = self.layer(self.quant_queries(queries), self.quant_memory(memory), query_pos, memory_pos)
        return self.dequant(out)


def sine_table(rows: int, width: int, scale: float):
    position = torch.arange(rows, dtype=torch.float)[:, None]
    frequency = torch.exp(torch.arange(0, width, 2, dtype=torch.float) * (-4.0 / width))
    table = torch.zeros(rows, width)
    table[:, 0::2] = torch.sin(position * frequency)
    table[:, 1::2] = torch.cos(position * frequency)
    return (table * scale)[None].expand(2, -1, -1).contiguous()


def example_input():
    generator = torch.Generator().manual_seed(11)
    queries = torch.randn(2, 5, 16, generator=generator) * 0.5
    memory = torch.randn(2, 7, 16, generator=generator)
    return queries, memory, sine_table(5, 16, 0.1), sine_table(7, 16, 1.0)
