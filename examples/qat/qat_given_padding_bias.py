"""examples/zoo/given_padding_bias.py traced after QAT with PyTorch's default qconfig.

The padding bias is a model input reaching -10000: `--fix --input` measures it and refuses a new
fake quant for it (the scores it is added to would need a scale spanning 10000), says why, and
writes nothing.
"""
from qat import example_module, trace_default_qat

zoo = example_module("zoo", "given_padding_bias")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
