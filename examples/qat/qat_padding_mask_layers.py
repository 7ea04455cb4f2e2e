"""examples/zoo/padding_mask_layers.py traced after QAT with PyTorch's default qconfig.

The trace inlines the small class that holds the features and their mask, but keeps every module
call: the mask leaves the backbone inside the tuple it returns and reaches each encoder layer as
an argument, where `masked_fill` uses it. qlint follows it there and reports the stub that
quantizes it with the image (line 63 of the zoo file); `--fix --input` takes the mask from the
stub's float input.
"""
from qat import example_module, trace_default_qat

zoo = example_module("zoo", "padding_mask_layers")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
