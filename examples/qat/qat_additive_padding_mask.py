"""examples/zoo/additive_padding_mask.py traced after QAT with PyTorch's default qconfig.

The -inf padding bias added by `torch.baddbmm` is an unquantized operand; its fix would be a new
fake quant calibrated on the inputs, but the value holds -inf, which no scale quantizes (an
infinite scale makes every output NaN): `--fix --input` refuses it and says why.
"""
from qat import example_module, trace_default_qat

zoo = example_module("zoo", "additive_padding_mask")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
