"""examples/zoo/box_coder_class.py traced after QAT with an int8 FakeQuantize: the trace inlines
the box coder's method."""
from qat import INT8_FAKE_QUANT, example_module, trace_qat

zoo = example_module("zoo", "box_coder_class")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_qat(Model(), example_input(), INT8_FAKE_QUANT)
