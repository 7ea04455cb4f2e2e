"""examples/zoo/fpn_levels_loop.py traced after QAT with PyTorch's default qconfig: the trace
unrolls the loop, so each level's call is a call of its own on one line."""
from qat import example_module, trace_default_qat

zoo = example_module("zoo", "fpn_levels_loop")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
