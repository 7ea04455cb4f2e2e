"""examples/zoo/valid_points_through_data_stub.py traced after QAT with PyTorch's default qconfig.

The points' FakeQuantize also quantizes the validity mask cast to float: shared-stub-mask and
reused-stub at that call, both fixed by a new fake quant for it, exact for 0 and 1.
"""
from qat import example_module, trace_default_qat

zoo = example_module("zoo", "valid_points_through_data_stub")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
