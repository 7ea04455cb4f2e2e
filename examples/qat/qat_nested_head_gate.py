"""examples/zoo/nested_head_gate.py traced after QAT with PyTorch's default qconfig."""
from qat import example_module, trace_default_qat

zoo = example_module("zoo", "nested_head_gate")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
