"""examples/zoo/padding_flag_joined.py traced after QAT with PyTorch's default qconfig.

A bool validity flag joined to quantized features by `torch.cat`: unquantized-operand with and
without `--input`; its new fake quant starts exact at scale 1.
"""
from qat import example_module, trace_default_qat

zoo = example_module("zoo", "padding_flag_joined")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
