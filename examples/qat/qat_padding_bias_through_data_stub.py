"""examples/zoo/padding_bias_through_data_stub.py traced after QAT with PyTorch's default qconfig.

The 0/1 attention mask shares the tokens' FakeQuantize and becomes the bias
`(1.0 - mask) * -10000.0`: shared-stub-mask, fixed by making the bias from the mask's float input.
"""
from qat import example_module, trace_default_qat

zoo = example_module("zoo", "padding_bias_through_data_stub")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
