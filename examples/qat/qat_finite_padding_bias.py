"""Attention with a padding bias of -10000 instead of -inf, as BERT-style encoders build it
(`(1.0 - keep) * -10000.0` added to the scores), traced after QAT with PyTorch's default qconfig.

The bias never passes a quant point (unquantized-operand). A new fake quant would hold it
exactly (0 and -10000 at a scale of about 39), but whatever the bias is added to would then need
a scale spanning 10000, which rounds the scores away: the finding sees the bias made by
`(1.0 - keep) * -10000.0`, says so, and offers none; `--fix` writes nothing. The finding stays.

The model is examples/zoo/finite_padding_bias.py, whose scripted form --fix refuses the same way.

Expected findings (in examples/zoo/finite_padding_bias.py):
  line 26 unquantized-operand  the -10000 bias added to the quantized scores
"""
from qat import example_module, trace_default_qat

zoo = example_module("zoo", "finite_padding_bias")
Model = zoo.Model
example_input = zoo.example_input


def build():
    return trace_default_qat(Model(), example_input(), "qnnpack")
