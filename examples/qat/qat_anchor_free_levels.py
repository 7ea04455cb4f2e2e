"""examples/zoo/anchor_free_levels.py traced after QAT with an int8 FakeQuantize: the trace
unrolls the loop over the levels, so each line has three copies."""
from qat import INT8_FAKE_QUANT, example_module, trace_qat

zoo = example_module("zoo", "anchor_free_levels")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_qat(Model(), example_input(), INT8_FAKE_QUANT)
