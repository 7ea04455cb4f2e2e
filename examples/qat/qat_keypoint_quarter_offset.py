"""examples/zoo/keypoint_quarter_offset.py traced after QAT with an int8 FakeQuantize."""
from qat import INT8_FAKE_QUANT, example_module, trace_qat

zoo = example_module("zoo", "keypoint_quarter_offset")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_qat(Model(), example_input(), INT8_FAKE_QUANT)
