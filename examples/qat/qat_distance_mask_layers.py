"""examples/zoo/distance_mask_layers.py traced after QAT with PyTorch's default qconfig.

The -inf distance mask is written in place in forward and passed into each attention layer,
where it is added to the quantized scores: an unquantized operand that holds infinity, so the
finding says to keep it out of the quantized domain and `--fix` offers no fake quant for it.
"""
from qat import example_module, trace_default_qat

zoo = example_module("zoo", "distance_mask_layers")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
