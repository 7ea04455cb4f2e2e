"""examples/zoo/pos_embed_helper.py traced after QAT with PyTorch's default qconfig: the trace
records each call of `with_pos_embed` on its own, so each embedding gets a fake quant of its own."""
from qat import example_module, trace_default_qat

zoo = example_module("zoo", "pos_embed_helper")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
