"""examples/zoo/padding_bias_own_stub.py traced after QAT with PyTorch's default qconfig.

The mask's own fake quant calibrates on 0 and 1 to scale 1/255, at which 1 is exact: the bias
`(1.0 - mask) * -10000.0` stays 0 for real tokens. Adding it to the quantized scores still needs
one scale for the sum, spanning the stand-in and the scores: that is reported (unquantized-operand).
"""
from qat import example_module, trace_default_qat

zoo = example_module("zoo", "padding_bias_own_stub")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
