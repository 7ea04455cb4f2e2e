"""examples/zoo/decode_heads_after_dequant.py traced after QAT with an int8 FakeQuantize: the two
DeQuantStubs of each level are called back to back, without their tensors."""
from qat import INT8_FAKE_QUANT, example_module, trace_qat

zoo = example_module("zoo", "decode_heads_after_dequant")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_qat(Model(), example_input(), INT8_FAKE_QUANT)
