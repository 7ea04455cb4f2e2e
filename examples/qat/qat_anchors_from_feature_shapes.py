"""examples/zoo/anchors_from_feature_shapes.py traced after QAT with PyTorch's default qconfig.

The trace keeps the DeQuantStubs' calls without their tensors; the size reads of the feature maps
that follow them are no readers of what they dequantize: the post-processing stays float, and
nothing is reported.
"""
from qat import example_module, trace_default_qat

zoo = example_module("zoo", "anchors_from_feature_shapes")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
