"""A one-class detector's post-process (YOLO with `nc=1`): qat_class_ids_joined's model with a
single class, so each box's class id, the argmax over one class score, is 0 on any input.

A new fake quant calibrated on that range would get the observer's smallest scale (1.2e-7) or its
default, and a class 1 (the same code trained with two classes, or an id added later) would come
out as 1.5e-5; it starts at scale 1 instead, as other whole numbers do.

Expected findings (in qat_class_ids_joined.py, where the model is written):
  line 31 unquantized-operand  `ids.float()` joined with the quantized boxes and score
"""
from qat import example_module, trace_default_qat

joined = example_module("qat", "qat_class_ids_joined")


def example_input():
    return joined.example_input()


def build():
    return trace_default_qat(joined.Model(classes=1), example_input(), "qnnpack")
