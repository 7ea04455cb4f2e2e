"""examples/zoo/detection_nms_helper.py traced after QAT with PyTorch's default qconfig.

The trace inlines the helper into forward, so the bool `keep` meets the quantized scores in
forward's graph; `--fix --input` gives it a clone of the model's FakeQuantize at a scale that
keeps 0 and 1 exact.
"""
from qat import example_module, trace_default_qat

zoo = example_module("zoo", "detection_nms_helper")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
