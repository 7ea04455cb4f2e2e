"""examples/zoo/anchor_box_decode.py traced after QAT with PyTorch's default qconfig: `widths`
gets one new fake quant for both of its reads."""
from qat import example_module, trace_default_qat

zoo = example_module("zoo", "anchor_box_decode")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
