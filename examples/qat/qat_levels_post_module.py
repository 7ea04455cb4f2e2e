"""examples/zoo/levels_post_module.py traced after QAT with PyTorch's default qconfig: the trace
records each `self.dequant(c)` without its tensor, back to back after the anchor points."""
from qat import example_module, trace_default_qat

zoo = example_module("zoo", "levels_post_module")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
