"""examples/zoo/decoder_norm_again.py traced after QAT with an int8 FakeQuantize: the norm's
fake quant sees the last layer's output twice."""
from qat import INT8_FAKE_QUANT, example_module, trace_qat

zoo = example_module("zoo", "decoder_norm_again")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_qat(Model(), example_input(), INT8_FAKE_QUANT)
