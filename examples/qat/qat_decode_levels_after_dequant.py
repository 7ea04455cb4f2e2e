"""examples/zoo/decode_levels_after_dequant.py traced after QAT with PyTorch's default qconfig:
the trace records each `self.dequant(levels[i])` without its tensor, after the op that made
the last level."""
from qat import example_module, trace_default_qat

zoo = example_module("zoo", "decode_levels_after_dequant")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
