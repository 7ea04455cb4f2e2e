"""examples/zoo/padding_mask_layers.py traced after QAT with PyTorch's default qconfig.

The trace inlines the small class that holds the features and their mask, but keeps every module
call: the mask leaves the backbone inside the tuple it returns and reaches each encoder layer as
an argument, where `masked_fill` uses it. qlint follows it there and reports the stub that
quantizes it with the image (line 63 of the zoo file); `--fix --input` takes the mask from the
stub's float input.
"""
import importlib.util
import os
import sys

from qat import trace_default_qat

_ZOO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "zoo", "padding_mask_layers.py"))
_spec = importlib.util.spec_from_file_location("qlint_example_padding_mask_layers", _ZOO)
zoo = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = zoo
_spec.loader.exec_module(zoo)

Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
