"""examples/zoo/padding_mask_cast_back.py traced after QAT with PyTorch's default qconfig: the
mask's call of the shared stub is the stub's FakeQuantize called again."""
from qat import example_module, trace_default_qat

zoo = example_module("zoo", "padding_mask_cast_back")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
