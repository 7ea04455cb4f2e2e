"""examples/zoo/batch_dict_stages.py traced after QAT with PyTorch's default qconfig."""
from qat import example_module, trace_default_qat

zoo = example_module("zoo", "batch_dict_stages")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
