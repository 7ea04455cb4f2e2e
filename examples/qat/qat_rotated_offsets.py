"""examples/zoo/rotated_offsets.py traced after QAT with PyTorch's default qconfig: the rotation
matrix from the float heading meets the quantized offsets in `torch.bmm`."""
from qat import example_module, trace_default_qat

zoo = example_module("zoo", "rotated_offsets")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
